/**
 * Emitting webhook events: the one line every change adds before its commit.
 *
 *   const tx = new Transaction();
 *   const next = tx.update(item, changes, { missing });
 *   await emitEvent(tx, ctx.scope, 'user.updated', userDocument(toRecord(next)));
 *   await tx.commit();
 *
 * - `where`: the account and the environment the changed record lives in (a request's Scope
 *   will do; account-level records such as environments and the account itself pass
 *   `globalScope(accountId)`). Events go only to endpoints of that same environment.
 * - `event`: `<type>.<action>` with the singular type: `license.created`, `machine.updated`,
 *   `component.deleted`, plus the actions that are not plain changes (`license.suspended`,
 *   `license.validation.succeeded`, `token.generated`, `user.password-reset`...: each resource's
 *   events.ts declares them). A kind no resource declares does not compile.
 * - `document`: the resource object as the API shows it (for a delete: as it was), or several
 *   (the attachments an attach or a detach of entitlements made or removed). The
 *   payload is `{"data": document}` serialised, with `meta` when given
 *   (`user.password-reset` carries `{passwordResetToken}` there). A meta value marked
 *   `secret(...)` is delivered but stored sealed and shown as "[FILTERED]" (see secret-meta.ts).
 *
 * It reads the enabled endpoints of that environment subscribed to the kind (the environment's
 * subscriptions item, usually read ahead with the request: see subscriptions.ts),
 * adds one webhook-event record per endpoint to the SAME transaction (an outbox: a change is
 * never committed without its events, and a failed request leaves none). The request sends
 * nothing: the outbox relay sends each new event's first delivery attempt to the webhooks queue
 * from the table's stream (shared/outbox/entries.ts), so an event whose change committed is
 * delivered even if the request's process dies the moment after.
 *
 * Webhook events themselves emit nothing: their delivery updates would feed on themselves.
 */
import { randomSecret } from '../auth/secrets.ts';
import type { ResourceObject } from '../jsonapi.ts';
import { subscribes } from '../resources/webhook-endpoints/entity.ts';
import { type Subscription, subscriptionsOf } from '../resources/webhook-endpoints/subscriptions.ts';
import { addWebhookEvent, type WebhookEventRecord } from '../resources/webhook-events/entity.ts';
import type { ReadAhead } from '../store/read-ahead.ts';
import type { Transaction } from '../store/transaction.ts';
import type { EventKind } from './kinds.ts';
import { type EventMeta, splitMeta } from './secret-meta.ts';

export interface EventOrigin {
  accountId: string;
  environmentId: string | null;
  /** A request's scope carries what it read ahead, the subscriptions item among it. */
  readAhead?: ReadAhead;
}

/** Where a record's events go (its own account and environment), with what its request read ahead. */
export const originOf = (record: EventOrigin, scope: { readAhead?: ReadAhead }): EventOrigin => ({
  accountId: record.accountId,
  environmentId: record.environmentId,
  readAhead: scope.readAhead,
});

export async function emitEvent(
  tx: Transaction,
  where: EventOrigin,
  event: EventKind,
  document: ResourceObject | readonly ResourceObject[],
  meta?: EventMeta,
): Promise<WebhookEventRecord[]> {
  const endpoints = (await subscriptionsOf(where.accountId, where.environmentId, where.readAhead)).filter(
    (endpoint) => subscribes(endpoint, event) && !aboutItself(endpoint, event, document),
  );
  if (endpoints.length === 0) return [];
  const { shown, sealFor } = meta ? splitMeta(meta) : { shown: undefined, sealFor: undefined };
  const payload = JSON.stringify({ data: document, ...(shown ? { meta: shown } : {}) });
  const events: WebhookEventRecord[] = [];
  for (const endpoint of endpoints) {
    const idempotencyToken = randomSecret();
    // Sealed per event: the seal is bound to the event (and its retries) it belongs to.
    const sealedMeta = sealFor && (await sealFor({ accountId: where.accountId, event, idempotencyToken }));
    events.push(
      addWebhookEvent(tx, {
        accountId: where.accountId,
        environmentId: where.environmentId,
        endpointId: endpoint.id,
        endpoint: endpoint.url,
        payload,
        event,
        idempotencyToken,
        sealedMeta,
      }),
    );
  }
  return events;
}

/** An endpoint is not told of its own deletion or of its own disabling. */
function aboutItself(endpoint: Subscription, event: string, document: ResourceObject | readonly ResourceObject[]): boolean {
  if (!('type' in document) || document.type !== 'webhook-endpoints' || document.id !== endpoint.id) return false;
  return event === 'webhook-endpoint.deleted' || document.attributes.enabled === false;
}
