/**
 * Records found by a unique value (an e-mail, an environment code, a license key, a machine
 * fingerprint): the value's marker names the record, and the record is handed out only if the
 * scope may read it — the same rule as a lookup by id, so a marker never opens a way around
 * account or environment isolation.
 */

import type { AccessPattern } from './data-model.ts';
import { type Key, type RecordType, uniqueKey } from './keys.ts';
import { readItem } from './read-ahead.ts';
import type { RecordOf } from './record-types.ts';
import { getItem, getItems, type Item, type StoredItem, visibleItems } from './records.ts';
import type { Scope } from './scope.ts';
import type { UniqueClaim } from './transaction.ts';

/**
 * The record of `type` holding `value` for `kind` (the marker's value as stored) that the scope
 * may read, if any.
 */
export async function findByUnique<K extends RecordType>(
  scope: Scope,
  type: K,
  kind: string,
  value: string,
): Promise<StoredItem<RecordOf<K>> | undefined> {
  const marker = await readItem(scope.readAhead, uniqueKey(scope.accountId, kind, value));
  const ref = marker && markerRef(marker);
  const found = ref && (await getItem(ref));
  if (found?.type !== type) return undefined;
  // Visible as by id (records.ts): the same account, an environment the scope reads, no removal under way.
  const [item] = await visibleItems(scope, type, [found]);
  return item;
}

/** The key of the record a uniqueness marker names (undefined: not a marker). */
export const markerRef = (marker: Item): Key | undefined =>
  typeof marker.ref === 'string' ? { PK: marker.ref, SK: marker.SK } : undefined;

/**
 * Raises the `taken` error of the first claim whose value some record holds already. For a
 * change that must do something irreversible before its own transaction (revoke tokens), so a
 * value taken is refused before anything is done; the transaction still claims it atomically.
 */
export async function requireUnclaimed(accountId: string, claims: readonly UniqueClaim[]): Promise<void> {
  if (claims.length === 0) return;
  const held = new Set((await getItems(claims.map((claim) => uniqueKey(accountId, claim.kind, claim.value)))).map((marker) => marker.PK));
  const taken = claims.find((claim) => held.has(uniqueKey(accountId, claim.kind, claim.value).PK));
  if (taken) throw taken.taken;
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 12,
    name: 'Claim a unique value',
    operation: 'TransactWriteItems, Put with `attribute_not_exists(PK)`',
    index: 'table',
    key: 'marker PK',
    usedBy: 'every create or change of a value a marker kind holds (marker kinds above), and the account slug',
    tests: ['store/data-model'],
  },
];
