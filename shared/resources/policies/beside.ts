/**
 * The policies of records shown with them (machines, licenses): what an answer judges by its
 * policy as it is now is read with the records, one BatchGetItem for a page.
 */
import { type Key, recordKey } from '../../store/keys.ts';
import { getRecordItems, type Item, itemOfType, type StoredItem } from '../../store/records.ts';
import type { PolicyRecord } from './entity.ts';

/** A record under a policy. */
export interface UnderPolicy {
  accountId: string;
  policyId: string;
}

/** The policies of `records` that still exist, by id: those among `read`, the others read now. */
export async function policiesOf(
  records: readonly UnderPolicy[],
  read: readonly Item[] = [],
): Promise<Map<string, StoredItem<PolicyRecord>>> {
  const first = records[0];
  if (!first) return new Map();
  const known = new Map(read.flatMap((item) => itemOfType('policies', item) ?? []).map((policy) => [policy.id, policy]));
  const missing = [...new Set(records.map((record) => record.policyId))].filter((id) => !known.has(id));
  for (const item of missing.length ? await getRecordItems(first.accountId, 'policies', missing) : []) known.set(item.id, item);
  return known;
}

/** What a list of such records reads beside its page: each record's policy (the index entry names it). */
export const policiesBeside =
  (accountId: string) =>
  (entry: Item): Key[] =>
    typeof entry.policyId === 'string' ? [recordKey(accountId, 'policies', entry.policyId)] : [];
