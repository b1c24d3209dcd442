/**
 * Webhook events as a resource: listed (newest first, filter `events[]=<kind>` or
 * `endpoint=<id>`), read, removed, and retried. A retry is a new event with a new id and the
 * same idempotency token, endpoint, payload (with its sealed meta) and kind; the original stays
 * as it was.
 */
import { can, isAdministrator, type Bearer } from '../../auth/bearer.ts';
import type { Permission } from '../../auth/permissions.ts';
import { deliverAfterCommit } from '../../events/emit.ts';
import { forbidden, invalidQuery, unprocessable } from '../../http/errors.ts';
import type { RequestContext } from '../../http/pipeline.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { recordKey } from '../../store/keys.ts';
import { listCollection, type CollectionRef, type PageRequest } from '../../store/paging.ts';
import { requireWritable, getItem, isUuid, requireVisibleItem, toRecord, type Item } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { addWebhookEvent, ENDPOINT_SLOT, KIND_SLOT, type WebhookEventRecord } from './event.ts';

type BearerContext = RequestContext & { bearer: Bearer };

function requireManager(bearer: Bearer, permission: Permission, action: string) {
  if (!isAdministrator(bearer) || !can(bearer, permission)) throw forbidden(`Only administrators may ${action}`);
}

async function visibleEvent(ctx: BearerContext, id: string, write: boolean): Promise<Item> {
  const item = await requireVisibleItem(ctx.scope, 'webhook-events', id);
  if (!isAdministrator(ctx.bearer)) throw new RecordNotFound('webhook-events', id);
  return write ? requireWritable(ctx.scope, item) : item;
}

export async function retrieveWebhookEvent(ctx: BearerContext, id: string): Promise<WebhookEventRecord> {
  const item = await visibleEvent(ctx, id, false);
  if (!can(ctx.bearer, 'webhook-event.read')) throw forbidden('This token may not read webhook events');
  return toRecord<WebhookEventRecord>(item);
}

const KIND = /^[a-z][a-z0-9-]*\.[a-z][a-z0-9.-]*$/;

/** Which collection the filters name: `events[]` (any of the kinds), `endpoint`, or every event. */
function collectionOf(ctx: BearerContext): CollectionRef {
  const { events, endpoint } = ctx.query;
  if (events !== undefined && endpoint !== undefined) throw invalidQuery('endpoint', 'endpoint cannot be combined with events[]');
  if (events !== undefined) {
    const kinds = typeof events === 'string' ? [events] : events;
    if (!Array.isArray(kinds) || kinds.length === 0 || !kinds.every((kind) => typeof kind === 'string' && kind.length <= 255 && KIND.test(kind))) {
      throw invalidQuery('events[]', 'events[] takes event kinds such as user.created');
    }
    return { type: 'webhook-events', anyParent: { slot: KIND_SLOT, parents: kinds.map((kind) => ({ type: 'webhook-kinds', id: kind })) } };
  }
  if (endpoint !== undefined) {
    if (typeof endpoint !== 'string' || !isUuid(endpoint)) throw invalidQuery('endpoint', 'endpoint must be a webhook endpoint id');
    return { type: 'webhook-events', parent: { type: 'webhook-endpoints', id: endpoint.toLowerCase(), slot: ENDPOINT_SLOT } };
  }
  return { type: 'webhook-events' };
}

export async function listWebhookEvents(ctx: BearerContext, page: PageRequest) {
  requireManager(ctx.bearer, 'webhook-event.read', 'list webhook events');
  return listCollection<WebhookEventRecord>(ctx.scope, collectionOf(ctx), page);
}

export async function deleteWebhookEvent(ctx: BearerContext, id: string): Promise<void> {
  const item = await visibleEvent(ctx, id, true);
  if (!can(ctx.bearer, 'webhook-event.delete')) throw forbidden('This token may not delete webhook events');
  const tx = new Transaction();
  tx.delete(item, new RecordNotFound('webhook-events', id));
  await tx.commit();
}

/** POST /webhook-events/<id>/actions/retry: a new DELIVERING event, delivered from attempt 1. */
export async function retryWebhookEvent(ctx: BearerContext, id: string): Promise<WebhookEventRecord> {
  const item = await visibleEvent(ctx, id, true);
  if (!can(ctx.bearer, 'webhook-event.retry')) throw forbidden('This token may not retry webhook events');
  const original = toRecord<WebhookEventRecord>(item);
  const endpointKey = recordKey(original.accountId, 'webhook-endpoints', original.endpointId);
  const notFound = unprocessable('ENDPOINT_NOT_FOUND', 'the webhook endpoint of this event no longer exists');
  if (!(await getItem(endpointKey))) throw notFound;
  const tx = new Transaction();
  const retry = addWebhookEvent(tx, {
    accountId: original.accountId,
    environmentId: original.environmentId,
    endpointId: original.endpointId,
    endpoint: original.endpoint,
    payload: original.payload,
    event: original.event,
    idempotencyToken: original.idempotencyToken,
    // As sealed: its context is what the original and its retries share.
    sealedMeta: original.sealedMeta,
  });
  tx.requireExists(endpointKey, notFound);
  deliverAfterCommit(tx, [retry]);
  await tx.commit();
  return retry;
}
