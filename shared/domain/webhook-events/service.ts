/**
 * Webhook events as a resource: listed (newest first, filter `events[]=<kind>` or
 * `endpoint=<id>`), read, removed, and retried. A retry is a new event with a new id and the
 * same idempotency token, endpoint, payload (with its sealed meta) and kind; the original stays
 * as it was.
 */
import { authorize, authorizeAction } from '../../auth/authorize.ts';
import type { Actor } from '../../auth/actor.ts';
import { deliverAfterCommit } from '../../events/emit.ts';
import { invalidQuery, ruleBroken } from '../../errors.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { recordKey } from '../../store/keys.ts';
import { listCollection, type CollectionRef, type PageRequest } from '../../store/paging.ts';
import { getItem, isUuid, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { addWebhookEvent, ENDPOINT_SLOT, KIND_SLOT, type WebhookEventRecord } from './event.ts';

export async function retrieveWebhookEvent(ctx: Actor, id: string): Promise<WebhookEventRecord> {
  return toRecord<WebhookEventRecord>(await authorize(ctx, 'webhook-events', id, 'read'));
}

const KIND = /^[a-z][a-z0-9-]*\.[a-z][a-z0-9.-]*$/;

/** Which collection the filters name: `events[]` (any of the kinds), `endpoint`, or every event. */
function collectionOf(ctx: Actor): CollectionRef {
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

export async function listWebhookEvents(ctx: Actor, page: PageRequest) {
  await authorizeAction(ctx, 'webhook-events', 'list');
  return listCollection<WebhookEventRecord>(ctx.scope, collectionOf(ctx), page);
}

export async function deleteWebhookEvent(ctx: Actor, id: string): Promise<void> {
  const item = await authorize(ctx, 'webhook-events', id, 'delete');
  const tx = new Transaction();
  tx.delete(item, new RecordNotFound('webhook-events', id));
  await tx.commit();
}

/** POST /webhook-events/<id>/actions/retry: a new DELIVERING event, delivered from attempt 1. */
export async function retryWebhookEvent(ctx: Actor, id: string): Promise<WebhookEventRecord> {
  const item = await authorize(ctx, 'webhook-events', id, 'retry');
  const original = toRecord<WebhookEventRecord>(item);
  const endpointKey = recordKey(original.accountId, 'webhook-endpoints', original.endpointId);
  const notFound = ruleBroken('ENDPOINT_NOT_FOUND', 'the webhook endpoint of this event no longer exists');
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
