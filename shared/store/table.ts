/**
 * The one table's shape, shared by the CDK stack and the local stack so both create the same
 * table. Key names are generic; what goes into them is decided in keys.ts alone.
 */
export interface IndexDefinition {
  name: string;
  partitionKey: string;
  sortKey: string;
  projection: 'ALL' | 'KEYS_ONLY';
}

export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Epoch seconds; DynamoDB deletes the item some time after it passes. */
  ttlAttribute: 'expiresAt',
  indexes: [
    // Every record's collection within its account and environment, newest first.
    { name: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK', projection: 'ALL' },
    // Up to four parent collections (e.g. a user's tokens, a machine's components).
    { name: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK', projection: 'ALL' },
    { name: 'GSI3', partitionKey: 'GSI3PK', sortKey: 'GSI3SK', projection: 'ALL' },
    { name: 'GSI4', partitionKey: 'GSI4PK', sortKey: 'GSI4SK', projection: 'ALL' },
    { name: 'GSI5', partitionKey: 'GSI5PK', sortKey: 'GSI5SK', projection: 'ALL' },
    // The keys-only twin of each collection index (same keys, `keysOnlyIndex` in keys.ts): what
    // skipping to a page[number] reads, paying for keys rather than whole records.
    { name: 'GSI1_KEYS', partitionKey: 'GSI1PK', sortKey: 'GSI1SK', projection: 'KEYS_ONLY' },
    { name: 'GSI2_KEYS', partitionKey: 'GSI2PK', sortKey: 'GSI2SK', projection: 'KEYS_ONLY' },
    { name: 'GSI3_KEYS', partitionKey: 'GSI3PK', sortKey: 'GSI3SK', projection: 'KEYS_ONLY' },
    { name: 'GSI4_KEYS', partitionKey: 'GSI4PK', sortKey: 'GSI4SK', projection: 'KEYS_ONLY' },
    { name: 'GSI5_KEYS', partitionKey: 'GSI5PK', sortKey: 'GSI5SK', projection: 'KEYS_ONLY' },
    // Every item that belongs to an environment (records, markers, counters): what a purge removes.
    { name: 'ENV', partitionKey: 'ENVPK', sortKey: 'PK', projection: 'KEYS_ONLY' },
    // Records due to be looked at again, by minute (shared/store/due.ts): what the heartbeat sweeper reads.
    { name: 'DUE', partitionKey: 'DUEPK', sortKey: 'DUESK', projection: 'KEYS_ONLY' },
  ] satisfies IndexDefinition[],
} as const;

export type IndexName = (typeof tableDefinition.indexes)[number]['name'];
