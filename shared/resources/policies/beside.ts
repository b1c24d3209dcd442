/**
 * The policies of records judged or shown by them (machines, licenses, processes): what an answer
 * judges by its policy is judged by the policy as it is now, read with the records (one
 * BatchGetItem for a page).
 */
import type { ResourceObject } from '../../jsonapi.ts';
import { type Key, recordKey } from '../../store/keys.ts';
import { getItem, getRecordItems, type Item, itemOfType, type StoredItem } from '../../store/records.ts';
import type { PolicyRecord } from './entity.ts';

/** A record under a policy. */
export interface UnderPolicy {
  accountId: string;
  policyId: string;
}

/** The policy of a record as stored now (undefined: removed meanwhile). */
export const policyOf = (record: UnderPolicy): Promise<Item | undefined> =>
  getItem(recordKey(record.accountId, 'policies', record.policyId));

/**
 * How to show each of `records`, by `show` with its policy: the policies read once, together, unless
 * they were read already (`read`: a list reads them beside its page, shared/store/paging.ts).
 */
export async function shownWithPolicies<R extends UnderPolicy>(
  records: readonly R[],
  read: readonly Item[],
  show: (record: R, policy: StoredItem<PolicyRecord> | undefined) => ResourceObject,
): Promise<(record: R) => ResourceObject> {
  const policies = await policiesOf(records, read);
  return (record) => show(record, policies.get(record.policyId));
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
