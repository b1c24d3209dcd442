/**
 * An environment's webhook subscriptions, kept in one item (see subscriptionsKey) beside the
 * endpoints themselves: one attribute per endpoint with what emitting needs (url, enabled,
 * subscriptions), written in the same transaction as the endpoint's own change. A change then
 * learns whom to tell from an item read ahead with its request, strongly consistent, instead
 * of querying the endpoints' collection.
 */
import { environmentMembership, subscriptionsKey } from '../../store/keys.ts';
import { type ReadAhead, readItem } from '../../store/read-ahead.ts';
import type { Transaction } from '../../store/transaction.ts';
import type { WebhookEndpointRecord } from './entity.ts';

export type Subscription = Pick<WebhookEndpointRecord, 'id' | 'url' | 'enabled' | 'subscriptions'>;

const ENTRY = 'endpoint#';

/** Writes (or with `gone`, removes) the endpoint's entry, in the transaction that changes the endpoint. */
export function recordSubscription(tx: Transaction, endpoint: WebhookEndpointRecord, gone = false): void {
  const { accountId, environmentId } = endpoint;
  const entry: Subscription = { id: endpoint.id, url: endpoint.url, enabled: endpoint.enabled, subscriptions: endpoint.subscriptions };
  tx.patch(subscriptionsKey(accountId, environmentId), {
    [`${ENTRY}${endpoint.id}`]: gone ? null : entry,
    ...(environmentId ? { ENVPK: environmentMembership(accountId, environmentId) } : {}),
  });
}

/** Every endpoint of the environment with what emitting needs. */
export async function subscriptionsOf(accountId: string, environmentId: string | null, ahead?: ReadAhead): Promise<Subscription[]> {
  const item = await readItem(ahead, subscriptionsKey(accountId, environmentId));
  return Object.entries(item ?? {})
    .filter(([name]) => name.startsWith(ENTRY))
    .map(([, entry]) => entry as Subscription);
}
