/**
 * Removing what hangs on a record: every member of one of its child collections is deleted
 * with its markers and counts, in transactions small enough for DynamoDB's limit of 100
 * operations. Each chunk is complete on its own, so an interrupted cascade can simply run again.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { collectionIndex, collectionName, collectionPartition, type RecordType } from './keys.ts';
import { partitionItems } from './paging.ts';
import { getItems, type Item } from './records.ts';
import { type Parent, Transaction } from './transaction.ts';

/** Room left in a transaction for the counters and the records the caller adds. */
const CHUNK_OPERATIONS = 80;

/** Every item of `type` under `parent` in one environment's partition (slot = parent's GSI). */
export const childItems = (accountId: string, environmentId: string | null, type: RecordType, parent: Parent, slot: number) =>
  partitionItems(collectionIndex(slot), collectionPartition(accountId, environmentId, collectionName(type, parent)));

/**
 * Deletes `items` (each with whatever `alsoDelete` adds for it, e.g. a lookup pointer) and
 * then runs `last` in the final transaction, so the parent goes only once its children have.
 */
export async function deleteWithChildren(
  items: Item[],
  last: (tx: Transaction) => void | Promise<void>,
  alsoDelete: (tx: Transaction, item: Item) => void = () => {},
): Promise<void> {
  // Always one chunk, however few the items: the last one runs `last`.
  let filling: Item[] = [];
  const chunks = [filling];
  for (const item of items) {
    if (filling.length * OPERATIONS_PER_CHILD >= CHUNK_OPERATIONS) {
      filling = [];
      chunks.push(filling);
    }
    filling.push(item);
  }
  for (const [i, chunk] of chunks.entries()) {
    await commitChunk(chunk, i === chunks.length - 1 ? last : () => {}, alsoDelete);
  }
}

/** A rough bound of the operations one child needs (record, pointer, markers). */
const OPERATIONS_PER_CHILD = 3;

/** Commits one chunk; a child deleted meanwhile by someone else is dropped and the chunk retried. */
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
    try {
      return await tx.commit();
    } catch (error) {
      if (!(error instanceof TransactionCanceledException) || attempt >= 3) throw error;
      const present = new Set((await getItems(children.map(({ PK, SK }) => ({ PK, SK })))).map((item) => item.PK));
      children = children.filter((item) => present.has(item.PK));
    }
  }
}
