/**
 * Handing over what hangs on a license (or a machine) after a change of it that its records
 * carry: a license's owner (owner.ts) or policy (transfer.ts), the users detached from it
 * (license-users/service.ts), a machine's owner (machines/owner.ts). The holder changes first, in a
 * transaction of its own; then its records follow in the request, a chunk per transaction, each
 * transaction on condition that the holder still holds what it was changed to (a later change
 * hands over in its turn) and that each record is as read (one changed meanwhile is read again). It goes twice, the
 * second time a moment later, for a record the index had not shown yet. A record created meanwhile
 * cannot miss it: its create requires what it inherits as read (`inheritedOwnersChanged`,
 * shared/resources/users/owners.ts) and reads again when it changed. A request cut short leaves
 * some records as they were: the same change asked again hands them over, since what a record
 * carries, not what the request read, tells what to move.
 */
import { conflict } from '../errors.ts';
import { collectionPage } from '../store/cascade.ts';
import { backoff, type PlacedItem, readAgain, type StoredItem } from '../store/records.ts';
import { Transaction } from '../store/transaction.ts';
import { childEnvironments, childPartition } from './graph.ts';
import { type Child, parentIn } from './slots.ts';

/** Records read at once, and handed over per transaction. */
const PAGE = 100;
const CHUNK = 25;
const ATTEMPTS = 5;

/** How long an index may take to show a record just written (a second pass looks again after it). */
const INDEX_LAG_MS = 1000;

/** One change to hand over. */
export interface HandOver {
  /** The parent the records name the holder by: `license` (the default) or `machine`. */
  parent?: 'license' | 'machine';
  /** The collections under the holder whose records carry what changed. */
  types: readonly Child[];
  /** One pass only (the records a first hand-over may have missed by moments): no wait for the index. */
  once?: boolean;
  /** Records per transaction (25 unless a record's write touches many items). */
  chunk?: number;
  /** What the holder must still hold for the hand-over to go on (else a later change took over). */
  holds: Record<string, unknown>;
  /** Writes into `tx` what else must hold (the new owner still exists), raising `movedOn` if not. */
  requires?: (tx: Transaction, movedOn: Error) => void;
  /** Whether `record` still carries what changed. */
  stale: (record: PlacedItem) => boolean;
  /** Writes into `tx` the record's hand-over, raising `changed` if it changed meanwhile. */
  write: (tx: Transaction, record: PlacedItem, changed: Error) => void;
}

/** The holder moved on to yet another change, or went: the later change (or the delete) takes over. */
class MovedOn extends Error {}

/** Hands what hangs on `holder` over (see the top): a pass, then another once the index has caught up. */
export async function handOver(holder: StoredItem, how: HandOver): Promise<void> {
  const environments = await childEnvironments(holder.accountId, holder.environmentId ?? null);
  try {
    await pass(holder, environments, how);
    if (how.once) return;
    await new Promise((resolve) => setTimeout(resolve, INDEX_LAG_MS));
    await pass(holder, environments, how);
  } catch (error) {
    if (!(error instanceof MovedOn)) throw error;
  }
}

async function pass(holder: StoredItem, environments: readonly (string | null)[], how: HandOver): Promise<void> {
  for (const type of how.types) {
    const collection = parentIn(type, (how.parent ?? 'license') as never, holder.id);
    for (const environmentId of environments) {
      const partition = childPartition(holder, { type, slot: collection.slot }, environmentId);
      let after: Record<string, unknown> | undefined;
      do {
        const page = await collectionPage(collection.slot, partition, PAGE, after);
        const chunk = how.chunk ?? CHUNK;
        for (let i = 0; i < page.items.length; i += chunk) await handChunk(holder, page.items.slice(i, i + chunk), how);
        after = page.after;
      } while (after);
    }
  }
}

/** Hands one chunk over in one transaction, reading again what changed meanwhile. */
async function handChunk(holder: StoredItem, records: PlacedItem[], how: HandOver): Promise<void> {
  let chunk = records.filter(how.stale);
  for (let attempt = 1; chunk.length > 0; attempt++) {
    const changed = conflict('a record changed while it was handed over');
    const tx = new Transaction();
    const movedOn = new MovedOn();
    tx.requireState({ PK: holder.PK, SK: holder.SK }, { PK: holder.PK, ...how.holds }, movedOn);
    how.requires?.(tx, movedOn);
    for (const record of chunk) how.write(tx, record, changed);
    try {
      await tx.commit();
      return;
    } catch (error) {
      if (error !== changed || attempt >= ATTEMPTS) throw error;
      await backoff(attempt);
      chunk = (await readAgain(chunk)).filter(how.stale);
    }
  }
}
