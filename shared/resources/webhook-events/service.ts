/**
 * Webhook events as a resource: listed (newest first, of some kinds or of one endpoint), read,
 * removed, and retried. A retry is a new event with a new id and the
 * same idempotency token, endpoint, payload (with its sealed meta) and kind; the original stays
 * as it was.
 */

import type { Actor } from '../../auth/actor.ts';
import { authorize, authorizeAction } from '../../auth/authorize.ts';
import { ruleBroken } from '../../errors.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { recordKey } from '../../store/keys.ts';
import { type CollectionRef, listCollection, type PageRequest } from '../../store/paging.ts';
import { getItem, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { addWebhookEvent, ENDPOINT_SLOT, KIND_SLOT, type WebhookEventRecord } from './entity.ts';

export async function retrieveWebhookEvent(actor: Actor, id: string): Promise<WebhookEventRecord> {
  return toRecord('webhook-events', await authorize(actor, 'webhook-events', id, 'read'));
}

/**
 * What a list of webhook events may be narrowed to: the events of any of these kinds, or those
 * of one endpoint (its id, lower-cased). Each is a collection of its own, so a list takes one of
 * them (the query that sends both is refused: shared/resources/webhook-events/operations.ts).
 */
export interface WebhookEventFilters {
  events?: readonly string[];
  endpoint?: string;
}

/** Which collection the filters name: `events` (any of the kinds), `endpoint`, or every event. */
function collectionOf(filters: WebhookEventFilters): CollectionRef<'webhook-events'> {
  if (filters.events !== undefined) {
    const parents = filters.events.map((kind) => ({ type: 'webhook-kinds' as const, id: kind }));
    return { type: 'webhook-events', anyParent: { slot: KIND_SLOT, parents } };
  }
  if (filters.endpoint !== undefined) {
    return { type: 'webhook-events', parent: { type: 'webhook-endpoints', id: filters.endpoint, slot: ENDPOINT_SLOT } };
  }
  return { type: 'webhook-events' };
}

export async function listWebhookEvents(actor: Actor, filters: WebhookEventFilters, page: PageRequest) {
  await authorizeAction(actor, 'webhook-events', 'list');
  return listCollection(actor.scope, collectionOf(filters), page);
}

export async function deleteWebhookEvent(actor: Actor, id: string): Promise<void> {
  const item = await authorize(actor, 'webhook-events', id, 'delete');
  const tx = new Transaction();
  tx.delete(item, new RecordNotFound('webhook-events', id));
  await tx.commit();
}

/**
 * POST /webhook-events/<id>/actions/retry: a new DELIVERING event, delivered from attempt 1 (sent
 * by the outbox relay, as every new event's is).
 */
export async function retryWebhookEvent(actor: Actor, id: string): Promise<WebhookEventRecord> {
  const item = await authorize(actor, 'webhook-events', id, 'retry');
  const original = toRecord('webhook-events', item);
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
  await tx.commit();
  return retry;
}
