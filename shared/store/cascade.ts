/**
 * Reading what hangs on a record (its child collections), and deleting a known set of items with
 * their markers and counts (a bearer's tokens, the components of an activation withdrawn) in
 * transactions small enough for DynamoDB's limit of 100 operations. Each chunk is complete on its
 * own, so an interrupted run can simply run again. The removal of a record with its descendants
 * is the licensing graph's (shared/licensing/removal.ts).
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, getTable } from './client.ts';
import {
  collectionKeys,
  collectionName,
  collectionPartition,
  counterKey,
  indexOver,
  type Key,
  PARENT_INDEXES,
  type RecordType,
} from './keys.ts';
import { partitionItems, recordsAt } from './paging.ts';
import type { RecordOf } from './record-types.ts';
import { getItems, type Item, itemOf, type StoredItem } from './records.ts';
import { MAX_OPERATIONS, type Parent, Transaction } from './transaction.ts';

/** The operations of children in one transaction: the rest is room for what the caller adds. */
const CHUNK_OPERATIONS = 80;

/**
 * What `alsoDelete` may add for one child at most: a token's lookup and register entry; a
 * machine's seat, its share, its entry under its fingerprint and its process count.
 */
const ALSO_DELETED = 4;

/** Every item of `type` under `parent` in one environment's partition (slot = parent's GSI). */
export const childItems = async <K extends RecordType>(
  accountId: string,
  environmentId: string | null,
  type: K,
  parent: Parent & { slot: number },
): Promise<StoredItem<RecordOf<K>>[]> =>
  (await partitionItems(collectionKeys(parent.slot), collectionPartition(accountId, environmentId, collectionName(type, parent)))).map(
    (item) => itemOf(type, item),
  );

/** A page of a collection partition, oldest first, from `after`: its items and where the next page starts (undefined: none). */
export async function collectionPage(
  slot: number,
  partition: string,
  limit: number,
  after?: Record<string, unknown>,
): Promise<{ items: StoredItem[]; after?: Record<string, unknown> }> {
  const index = collectionKeys(slot);
  const response = await db().send(
    new QueryCommand({
      TableName: getTable(),
      IndexName: indexOver(index),
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': `${index}PK` },
      ExpressionAttributeValues: { ':pk': partition },
      ExclusiveStartKey: after,
      Limit: limit,
    }),
  );
  // A collection partition holds records only.
  const items = (await recordsAt((response.Items ?? []) as Item[])) as StoredItem[];
  return { items, after: response.LastEvaluatedKey };
}

/**
 * The members of collection partitions (each with its GSI slot), in order, if they hold at most
 * `limit` together: their counters first, in one BatchGetItem, then only the partitions that hold
 * any. Undefined when they hold more.
 */
export async function membersUpTo(
  partitions: readonly { slot: number; partition: string }[],
  limit: number,
): Promise<StoredItem[] | undefined> {
  const counts = new Map(
    (await getItems(partitions.map(({ partition }) => counterKey(partition)))).map((count) => [count.PK, Number(count.n ?? 0)]),
  );
  const countOf = (partition: string) => counts.get(counterKey(partition).PK) ?? 0;
  const held = partitions.filter(({ partition }) => countOf(partition) > 0);
  if (held.reduce((sum, { partition }) => sum + countOf(partition), 0) > limit) return undefined;
  const pages = await Promise.all(held.map(({ slot, partition }) => collectionPage(slot, partition, limit + 1)));
  const members = pages.flatMap((page) => page.items);
  return members.length > limit ? undefined : members;
}

/** What deleting `item` writes besides the counts it leaves: the record, its markers, what `alsoDelete` adds. */
const ownOperations = (item: Item) => 1 + ((item.markers as unknown[] | undefined)?.length ?? 0) + ALSO_DELETED;

/**
 * The counts deleting `item` changes: its collections' counters and its holder counts. Siblings
 * share many (a license's components its counter, and often their machine's), and a transaction
 * changes each count once, however many of its records leave it.
 */
function countsOf(item: Item): string[] {
  const collections = ['GSI1', ...PARENT_INDEXES].map((index) => item[`${index}PK`]).filter((pk): pk is string => typeof pk === 'string');
  const counted = ((item.counted as Key[] | undefined) ?? []).map((key) => `${key.PK}|${key.SK}`);
  return [...collections, ...counted];
}

/**
 * Deletes `items` (each with whatever `alsoDelete` adds for it, e.g. a lookup pointer) and
 * then runs `last`, in the final transaction if it fits there, so the parent goes only once its
 * children have.
 */
export async function deleteWithChildren<T extends Item>(
  items: T[],
  last: (tx: Transaction) => void | Promise<void>,
  alsoDelete: (tx: Transaction, item: T) => void = () => {},
): Promise<void> {
  let chunk: T[] = [];
  const chunks = [chunk];
  let operations = 0;
  let counts = new Set<string>();
  for (const item of items) {
    const added = () => countsOf(item).filter((count) => !counts.has(count));
    if (chunk.length > 0 && operations + ownOperations(item) + added().length > CHUNK_OPERATIONS) {
      chunk = [];
      chunks.push(chunk);
      operations = 0;
      counts = new Set();
    }
    const fresh = added();
    chunk.push(item);
    operations += ownOperations(item) + fresh.length;
    for (const count of fresh) counts.add(count);
  }
  for (const [i, children] of chunks.entries()) {
    await commitChunk(children, i === chunks.length - 1 ? last : () => {}, alsoDelete);
  }
}

/**
 * Commits one chunk; a child deleted meanwhile by someone else is dropped and the chunk retried.
 * When `last` does not fit beside the children (it writes an event per webhook endpoint), it
 * runs in a transaction of its own after them.
 */
async function commitChunk<T extends Item>(
  chunk: T[],
  last: (tx: Transaction) => void | Promise<void>,
  alsoDelete: (tx: Transaction, item: T) => void,
) {
  let children = chunk;
  for (let attempt = 1; ; attempt++) {
    const tx = new Transaction();
    for (const item of children) {
      tx.delete(item);
      alsoDelete(tx, item);
    }
    await last(tx);
    if (tx.size > MAX_OPERATIONS && children.length > 0) {
      await commitChunk(children, () => {}, alsoDelete);
      return commitChunk([], last, alsoDelete);
    }
    try {
      return await tx.commit();
    } catch (error) {
      // A transaction of one delete is sent as that delete alone (transaction.ts): its failure is its own.
      const failed = error instanceof TransactionCanceledException || error instanceof ConditionalCheckFailedException;
      if (!failed || attempt >= 3) throw error;
      const present = new Set((await getItems(children.map(({ PK, SK }) => ({ PK, SK })))).map((item) => item.PK));
      children = children.filter((item) => present.has(item.PK));
    }
  }
}
