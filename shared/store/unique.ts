/**
 * Records found by a unique value (an e-mail, an environment code, a license key, a machine
 * fingerprint): the value's marker names the record, and the record is handed out only if the
 * scope may read it — the same rule as a lookup by id, so a marker never opens a way around
 * account or environment isolation.
 */
import { uniqueKey, type RecordType } from './keys.ts';
import { readItem } from './read-ahead.ts';
import { getItem, type Item } from './records.ts';
import { canRead, type Scope } from './scope.ts';

/** The record holding `value` for `kind` (the marker's value as stored) that the scope may read, if any. */
export async function findByUnique(scope: Scope, kind: string, value: string): Promise<Item | undefined> {
  const marker = await readItem(scope.readAhead, uniqueKey(scope.accountId, kind, value));
  if (!marker) return undefined;
  const item = await getItem({ PK: marker.ref as string, SK: marker.SK });
  if (!item || item.accountId !== scope.accountId) return undefined;
  return canRead(scope, item.type as RecordType, (item.environmentId as string | null) ?? null) ? item : undefined;
}
