/**
 * The licensing graph's structure (products → policies → licenses → machines → components, processes):
 * the collections each type joins, the records a create body's relationships name, and what
 * hangs on a record its removal takes with it (removal.ts). Who may reach what is the policies'
 * (each resource's policy.ts, with the reach rules they share in shared/auth/policies/graph.ts).
 */

import type { Actor } from '../auth/actor.ts';
import { relatable } from '../auth/authorize.ts';
import type { PolicyType } from '../auth/policies/index.ts';
import { ruleBroken } from '../errors.ts';
import { collectionName, collectionPartition, type RecordType, recordKey } from '../store/keys.ts';
import { partitionItems } from '../store/paging.ts';
import { getVisibleItem, isUuid, itemOfType, type PlacedItem, type RecordOf, type StoredItem } from '../store/records.ts';
import type { Transaction } from '../store/transaction.ts';
import { collectionsUnder } from './slots.ts';

/**
 * A record named by a relationship of a create body. Missing, out of the scope or out of the
 * bearer's reach: 422 `<RELATIONSHIP>_NOT_FOUND` pointing at the relationship. What the scope
 * shows is exactly what a new record may hang on (its own environment, or global from a
 * SHARED one), so compatibility (docs/rules.md §5.2) holds by construction.
 */
export async function relatedItem<K extends PolicyType & RecordType>(
  actor: Actor,
  type: K,
  id: string,
  relationship: string,
): Promise<StoredItem<RecordOf<K>>> {
  const item = isUuid(id) ? await getVisibleItem(actor.scope, type, id) : undefined;
  if (!item || !(await relatable(actor, type, item))) {
    throw ruleBroken(
      `${relationship.toUpperCase()}_NOT_FOUND`,
      `${relationship} '${id}' was not found`,
      `/data/relationships/${relationship}`,
    );
  }
  return item;
}

/**
 * The environments whose partitions may hold children of a record: its own; for a global
 * record also every SHARED environment, where records may hang on global ones.
 */
export async function childEnvironments(accountId: string, environmentId: string | null): Promise<(string | null)[]> {
  if (environmentId !== null) return [environmentId];
  // The account's environments, one partition (an account has few): read whole, without counting them.
  const environments = await partitionItems('GSI1', collectionPartition(accountId, null, collectionName('environments')));
  return [
    null,
    ...environments
      .flatMap((item) => itemOfType('environments', item) ?? [])
      .filter((environment) => environment.isolationStrategy === 'SHARED')
      .map((environment) => environment.id),
  ];
}

/** The types a removal takes descendants with. */
export type Removable = 'products' | 'policies' | 'licenses' | 'machines';

export const isRemovable = (type: unknown): type is Removable =>
  type === 'products' || type === 'policies' || type === 'licenses' || type === 'machines';

/** A collection of records under a record: one GSI partition per environment its children may live in. */
export interface ChildCollection {
  type: RecordType;
  slot: number;
}

/**
 * What hangs on a removable record, by its collections, deepest first, as the entities declare
 * their parents: a product's collections hold everything under it; a policy's its licenses,
 * each with what hangs on it (the license's own collections); a license's its machines, their
 * components and processes; a machine's its components and processes.
 */
const deepestFirst = (type: Removable): readonly ChildCollection[] => [...collectionsUnder(type)].reverse();

export const HANGING: Record<Removable, readonly ChildCollection[]> = {
  products: deepestFirst('products'),
  policies: deepestFirst('policies'),
  licenses: deepestFirst('licenses'),
  machines: deepestFirst('machines'),
};

/**
 * The environments whose partitions may hold children of `record`, given those of the removal it
 * is part of (`environments`, from childEnvironments): its own, or for a global record all of them.
 */
export const environmentsUnder = (record: PlacedItem, environments: readonly (string | null)[]): readonly (string | null)[] => {
  const environmentId = record.environmentId ?? null;
  return environmentId === null ? environments : [environmentId];
};

/** The partition of `collection` under `parent` in one environment. */
export const childPartition = (parent: PlacedItem, collection: ChildCollection, environmentId: string | null): string =>
  collectionPartition(parent.accountId, environmentId, collectionName(collection.type, { type: parent.type, id: parent.id }));

/** What a record of the graph names of its ancestors. */
interface Ancestry {
  accountId: string;
  productId?: string;
  policyId?: string;
  licenseId?: string;
  machineId?: string;
}

const ANCESTOR_OF: Partial<Record<RecordType, (record: Ancestry) => string | undefined>> = {
  products: (record) => record.productId,
  policies: (record) => record.policyId,
  licenses: (record) => record.licenseId,
  machines: (record) => record.machineId,
};

/**
 * Requires, in the transaction that creates `record`, that its ancestors of `types` still exist
 * (those the transaction does not check or write already): a record whose policy or product was
 * removed meanwhile is refused with `missing` rather than created under nothing, so a removal's
 * cascade, which lists after the removal commits, meets every descendant (removal.ts).
 */
export function requireAncestry(tx: Transaction, record: Ancestry, types: readonly RecordType[], missing: Error): void {
  for (const type of types) {
    const id = ANCESTOR_OF[type]?.(record);
    if (id) tx.requireExists(recordKey(record.accountId, type, id), missing);
  }
}
