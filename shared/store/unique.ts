/**
 * Records found by a unique value (an e-mail, an environment code, a license key, a machine
 * fingerprint): the value's marker names the record, and the record is handed out only if the
 * scope may read it — the same rule as a lookup by id, so a marker never opens a way around
 * account or environment isolation.
 */
import { type RecordType, uniqueKey } from './keys.ts';
import { readItem } from './read-ahead.ts';
import { getItem, getItems, type Item } from './records.ts';
import { goneWithRemoval } from './removals.ts';
import { canRead, type Scope } from './scope.ts';
import type { UniqueClaim } from './transaction.ts';

/** The record holding `value` for `kind` (the marker's value as stored) that the scope may read, if any. */
export async function findByUnique(scope: Scope, kind: string, value: string): Promise<Item | undefined> {
  const marker = await readItem(scope.readAhead, uniqueKey(scope.accountId, kind, value));
  if (!marker) return undefined;
  const item = await getItem({ PK: marker.ref as string, SK: marker.SK });
  if (!item) return undefined;
  if (!canRead(scope, item.type as RecordType, (item.environmentId as string | null) ?? null)) return undefined;
  return (await goneWithRemoval(scope, item)) ? undefined : item;
}

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
