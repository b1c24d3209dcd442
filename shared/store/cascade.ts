/**
 * Removing what hangs on a record: every member of one of its child collections is deleted
 * with its markers and counts, in transactions small enough for DynamoDB's limit of 100
 * operations. Each chunk is complete on its own, so an interrupted cascade can simply run again.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { collectionIndex, collectionName, collectionPartition, PARENT_INDEXES, type RecordType } from './keys.ts';
import { partitionItems } from './paging.ts';
import { getItems, type Item } from './records.ts';
import { MAX_OPERATIONS, type Parent, Transaction } from './transaction.ts';

/** The operations of children in one transaction: the rest is room for what the caller adds. */
const CHUNK_OPERATIONS = 80;

/** What `alsoDelete` may add for one child at most (a token's lookup and register entry, a machine's seat and its share). */
const ALSO_DELETED = 2;

/** Every item of `type` under `parent` in one environment's partition (slot = parent's GSI). */
export const childItems = (accountId: string, environmentId: string | null, type: RecordType, parent: Parent, slot: number) =>
  partitionItems(collectionIndex(slot), collectionPartition(accountId, environmentId, collectionName(type, parent)));

/**
 * The operations deleting `item` takes at most: the record, its markers, the counts it leaves
 * (its collections' counters, which children of different parents do not share, and its holder
 * counts) and what `alsoDelete` adds.
 */
function operationsOf(item: Item): number {
  const collections = ['GSI1', ...PARENT_INDEXES].filter((index) => typeof item[`${index}PK`] === 'string').length;
  const markers = (item.markers as unknown[] | undefined)?.length ?? 0;
  const counted = (item.counted as unknown[] | undefined)?.length ?? 0;
  return 1 + markers + collections + counted + ALSO_DELETED;
}

/**
 * Deletes `items` (each with whatever `alsoDelete` adds for it, e.g. a lookup pointer) and
 * then runs `last`, in the final transaction if it fits there, so the parent goes only once its
 * children have.
 */
export async function deleteWithChildren(
  items: Item[],
  last: (tx: Transaction) => void | Promise<void>,
  alsoDelete: (tx: Transaction, item: Item) => void = () => {},
): Promise<void> {
  const chunks: Item[][] = [[]];
  let operations = 0;
  for (const item of items) {
    const cost = operationsOf(item);
    if (operations + cost > CHUNK_OPERATIONS && chunks[chunks.length - 1]?.length) {
      chunks.push([]);
      operations = 0;
    }
    chunks[chunks.length - 1]?.push(item);
    operations += cost;
  }
  for (const [i, chunk] of chunks.entries()) {
    await commitChunk(chunk, i === chunks.length - 1 ? last : () => {}, alsoDelete);
  }
}

/**
 * Commits one chunk; a child deleted meanwhile by someone else is dropped and the chunk retried.
 * When `last` does not fit beside the children (it writes an event per webhook endpoint), it
 * runs in a transaction of its own after them.
 */
async function commitChunk(
  chunk: Item[],
  last: (tx: Transaction) => void | Promise<void>,
  alsoDelete: (tx: Transaction, item: Item) => void,
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
      if (!(error instanceof TransactionCanceledException) || attempt >= 3) throw error;
      const present = new Set((await getItems(children.map(({ PK, SK }) => ({ PK, SK })))).map((item) => item.PK));
      children = children.filter((item) => present.has(item.PK));
    }
  }
}
