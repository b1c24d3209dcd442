/**
 * Handing over what hangs on a license after a change of the license that its records carry: its
 * owner (owner.ts) or its policy (transfer.ts). The license changes first, in a transaction of its
 * own; then its records follow in the request, a chunk per transaction, each transaction on
 * condition that the license still holds what it was changed to (a later change hands over in its
 * turn) and that each record is as read (one changed meanwhile is read again). It goes twice, the
 * second time a moment later, for a record the index had not shown yet. A record created meanwhile
 * cannot miss it: its create requires what it inherits as read (`inheritedOwnersChanged`,
 * shared/resources/users/owners.ts) and reads again when it changed. A request cut short leaves
 * some records as they were: the same change asked again hands them over, since what a record
 * carries, not what the request read, tells what to move.
 */
import { conflict } from '../../errors.ts';
import { childEnvironments, childPartition } from '../../licensing/graph.ts';
import { type Child, parentIn } from '../../licensing/slots.ts';
import { collectionPage } from '../../store/cascade.ts';
import { backoff, type PlacedItem, readAgain, type StoredItem } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import type { LicenseRecord } from './entity.ts';

/** Records read at once, and handed over per transaction. */
const PAGE = 100;
const CHUNK = 25;
const ATTEMPTS = 5;

/** How long an index may take to show a record just written (a second pass looks again after it). */
const INDEX_LAG_MS = 1000;

/** One change to hand over. */
export interface HandOver {
  /** The collections under the license whose records carry what changed. */
  types: readonly Child[];
  /** Records per transaction (25 unless a record's write touches many items). */
  chunk?: number;
  /** What the license must still hold for the hand-over to go on (else a later change took over). */
  license: Record<string, unknown>;
  /** Writes into `tx` what else must hold (the new owner still exists), raising `movedOn` if not. */
  requires?: (tx: Transaction, movedOn: Error) => void;
  /** Whether `record` still carries what changed. */
  stale: (record: PlacedItem) => boolean;
  /** Writes into `tx` the record's hand-over, raising `changed` if it changed meanwhile. */
  write: (tx: Transaction, record: PlacedItem, changed: Error) => void;
}

/** The license moved on to yet another change, or went: the later change (or the delete) takes over. */
class MovedOn extends Error {}

/** Hands what hangs on `license` over (see the top): a pass, then another once the index has caught up. */
export async function handOver(license: StoredItem<LicenseRecord>, how: HandOver): Promise<void> {
  const environments = await childEnvironments(license.accountId, license.environmentId ?? null);
  try {
    await pass(license, environments, how);
    await new Promise((resolve) => setTimeout(resolve, INDEX_LAG_MS));
    await pass(license, environments, how);
  } catch (error) {
    if (!(error instanceof MovedOn)) throw error;
  }
}

async function pass(license: StoredItem<LicenseRecord>, environments: readonly (string | null)[], how: HandOver): Promise<void> {
  for (const type of how.types) {
    const collection = parentIn(type, 'license' as never, license.id);
    for (const environmentId of environments) {
      const partition = childPartition(license, { type, slot: collection.slot }, environmentId);
      let after: Record<string, unknown> | undefined;
      do {
        const page = await collectionPage(collection.slot, partition, PAGE, after);
        const chunk = how.chunk ?? CHUNK;
        for (let i = 0; i < page.items.length; i += chunk) await handChunk(license, page.items.slice(i, i + chunk), how);
        after = page.after;
      } while (after);
    }
  }
}

/** Hands one chunk over in one transaction, reading again what changed meanwhile. */
async function handChunk(license: StoredItem<LicenseRecord>, records: PlacedItem[], how: HandOver): Promise<void> {
  let chunk = records.filter(how.stale);
  for (let attempt = 1; chunk.length > 0; attempt++) {
    const changed = conflict('a record of the license changed while it was handed over');
    const tx = new Transaction();
    const movedOn = new MovedOn();
    tx.requireState({ PK: license.PK, SK: license.SK }, { PK: license.PK, ...how.license }, movedOn);
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
