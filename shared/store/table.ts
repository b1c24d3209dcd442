/**
 * The one table's shape, shared by the CDK stack and the local stack so both create the same
 * table. Key names are generic; what goes into them is decided in keys.ts alone.
 */
export interface IndexDefinition {
  name: string;
  partitionKey: string;
  sortKey: string;
  projection: 'INCLUDE' | 'KEYS_ONLY';
  /** INCLUDE: the attributes projected besides the keys. */
  include?: readonly string[];
}

/**
 * What a parent collection's index holds besides the keys: the ids a list filters on within one
 * of its partitions (the parents a record names, as `<parent>Id`: shared/licensing/lists.ts). A list
 * reads the page's records themselves from the table by their keys, so a record's write costs
 * each index one small entry rather than the whole record again, and a change to an attribute no
 * index holds writes no index at all.
 */
export const FILTERED_ATTRIBUTES = ['machineId', 'licenseId', 'policyId', 'productId', 'ownerId'] as const;

const slimIndex = (n: number, include: readonly string[] = FILTERED_ATTRIBUTES): IndexDefinition => ({
  name: `GSI${n}_SLIM`,
  partitionKey: `GSI${n}PK`,
  sortKey: `GSI${n}SK`,
  projection: 'INCLUDE',
  include,
});

export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Epoch seconds; DynamoDB deletes the item some time after it passes. */
  ttlAttribute: 'expiresAt',
  indexes: [
    // Every record's collection within its account and environment, newest first. A list of a
    // whole type compares nothing (shared/licensing/lists.ts); it holds a record's policy, which
    // a page of machines reads beside them (their heartbeat is judged by it), and for webhook
    // events what finds those the outbox relay never sent (data-model pattern 60).
    slimIndex(1, ['policyId', 'status', 'deliveryAttempt']),
    // Up to four parent collections (e.g. a user's tokens, a machine's components).
    slimIndex(2),
    slimIndex(3),
    slimIndex(4),
    slimIndex(5),
    // Every item that belongs to an environment (records, markers, counters): what a purge removes.
    { name: 'ENV', partitionKey: 'ENVPK', sortKey: 'PK', projection: 'KEYS_ONLY' },
    // Records due to be looked at again, by minute (shared/store/due.ts): what the heartbeat sweeper reads.
    { name: 'DUE', partitionKey: 'DUEPK', sortKey: 'DUESK', projection: 'KEYS_ONLY' },
  ] satisfies IndexDefinition[],
} as const;

export type IndexName = (typeof tableDefinition.indexes)[number]['name'];
