/** The webhook events' operations: what each reads of a request, and what it answers. */

import * as z from 'zod/mini';
import { ACCOUNT, EMIT, READ, WRITE } from '../../access.ts';
import { declare } from '../../http/declaration.ts';
import { uuidFilter } from '../../http/query.ts';

/** The form of an event kind (`user.created`): a filter may name kinds not emitted yet, and then matches nothing. */
const EVENT_KIND = /^[a-z][a-z0-9-]*\.[a-z][a-z0-9.-]*$/;
const KINDS_MESSAGE = 'takes event kinds such as user.created';

/**
 * `events[]=<kind>`, once or more (a plain `events=<kind>` is one kind). A refused kind names
 * the parameter as it is sent, `events[]` (the empty key renders as `[]`).
 */
const eventKinds = z.optional(
  z
    .pipe(
      z.union([z.string(), z.array(z.string())], { error: KINDS_MESSAGE }),
      z.transform((kinds) => (typeof kinds === 'string' ? [kinds] : kinds)),
    )
    .check(z.refine((kinds) => kinds.every((kind) => kind.length <= 255 && EVENT_KIND.test(kind)), { message: KINDS_MESSAGE, path: [''] })),
);

export const webhookEvents = {
  list: declare({
    operation: 'webhookEvents.list',
    authorizes: { type: 'webhook-events', action: 'list' },
    method: 'GET',
    path: `${ACCOUNT}/webhook-events`,
    access: READ,
    summary: 'List webhook events, newest first, of some kinds or of one endpoint',
    auth: 'bearer',
    paged: true,
    query: z.object({ events: eventKinds, endpoint: uuidFilter() }).check(
      z.refine((filters) => filters.events === undefined || filters.endpoint === undefined, {
        message: 'cannot be combined with events[]',
        path: ['endpoint'],
      }),
    ),
    answers: { 200: { list: 'webhook-events' } },
    faults: [403],
  }),
  retrieve: declare({
    operation: 'webhookEvents.retrieve',
    authorizes: { type: 'webhook-events', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/webhook-events/{id}`,
    access: READ,
    summary: 'Retrieve a webhook event',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'webhook-events' } },
    faults: [403],
  }),
  remove: declare({
    operation: 'webhookEvents.delete',
    authorizes: { type: 'webhook-events', action: 'delete', record: true },
    method: 'DELETE',
    path: `${ACCOUNT}/webhook-events/{id}`,
    access: WRITE,
    summary: 'Delete a webhook event',
    auth: 'bearer',
    params: ['id'],
    answers: { 204: { empty: true } },
    faults: [403],
  }),
  retry: declare({
    operation: 'webhookEvents.retry',
    authorizes: { type: 'webhook-events', action: 'retry', record: true },
    method: 'POST',
    path: `${ACCOUNT}/webhook-events/{id}/actions/retry`,
    access: EMIT,
    summary: 'Retry a webhook event: a new event, delivered anew (the original stays as it was)',
    auth: 'bearer',
    params: ['id'],
    answers: { 201: { resource: 'webhook-events' } },
    // 422 ENDPOINT_NOT_FOUND: the event's endpoint was deleted since.
    faults: [403, 422],
  }),
};
