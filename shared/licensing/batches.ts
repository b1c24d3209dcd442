/**
 * Taking records of the licensing graph out together, whoever does it (a removal in its request,
 * the cascades worker): given in order, deepest first (each record after what hangs on it), they
 * go in transactions of at most 100 operations, each record with what its removal writes
 * (teardown.ts) and the tokens of the products and licenses among them before their holder. As
 * before the cascades had a queue, only the removed record announces itself (`<type>.deleted`):
 * its descendants go without events of their own, as Keygen's do (docs/rules.md §10).
 *
 * A record that others hang on is deleted only while nothing hangs on it but what the same
 * transaction deletes, as its counts tell: a machine's process count and its components'
 * collections, a license's machine count, a policy's license collections, a product's policy
 * collections (by induction, nothing below). A child written meanwhile (a create racing the
 * removal) thus fails the transaction with `StillHanging` instead of being left without its parent.
 *
 * A record removed or changed by someone else meanwhile (a machine's cores, a token generated
 * for a license) fails its transaction: the records are read again and the transaction retried
 * with those still there, so a batch run twice ends in the same state.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { Conflict } from '../errors.ts';
import { logger } from '../logger.ts';
import { removeSetsOf } from '../resources/entitlements/attachments.ts';
import { holdsSeat, SeatChanged } from '../resources/machines/seats.ts';
import { tokensOf } from '../resources/tokens/service.ts';
import { RecordNotFound } from '../store/errors.ts';
import {
  bearerTokensHeadKey,
  counterKey,
  type Key,
  licenseMachineCountKey,
  licenseProcessCountKey,
  machineProcessCountKey,
  PARENT_INDEXES,
  type RecordType,
} from '../store/keys.ts';
import { backoff, getItems, type PlacedItem, readAgain } from '../store/records.ts';
import { MAX_OPERATIONS, Transaction } from '../store/transaction.ts';
import { childPartition, environmentsUnder, HANGING, isRemovable } from './graph.ts';
import { takeOut } from './teardown.ts';

/** Something joined a record while it was being deleted: what hangs on it must go first. */
export class StillHanging extends Error {
  constructor(readonly records: readonly PlacedItem[]) {
    super('records joined what is being removed');
    this.name = 'StillHanging';
  }
}

const ATTEMPTS = 5;

const keyName = (key: Key) => `${key.PK}|${key.SK}`;
const isHolder = (item: PlacedItem) => item.type === 'licenses' || item.type === 'products';
const isPrepared = (records: readonly PlacedItem[] | Prepared): records is Prepared => !Array.isArray(records);

/** What one removal's batches share: the environments its records may live in, and whether its root is gone. */
export class Batches {
  /**
   * `environments`: those of the removal's root (childEnvironments). `rootRemoved`: the removal's
   * root is gone already (the cascades worker), so nothing can be created under these records any
   * more (every create requires its whole ancestry): a count or a token register read as absent
   * stays absent, and needs neither a delete nor a check.
   */
  constructor(
    readonly environments: readonly (string | null)[],
    private readonly rootRemoved = false,
  ) {}

  /**
   * Takes `records` out (or those `prepare` made ready), deepest first, with the tokens of the
   * products and licenses among them. Returns how many records went (tokens not counted).
   */
  async remove(records: readonly PlacedItem[] | Prepared): Promise<number> {
    const prepared = isPrepared(records) ? records : await this.prepare(records);
    let removed = 0;
    for (const chunk of this.chunks(prepared)) removed += await this.commit(chunk);
    // The entitlements of the policies and licenses removed go once those have: a removal that
    // fails leaves its records as they were, attachments included. An attach racing the removal
    // fails on its holder. Should this fail, the sets left name holders that no longer exist and
    // nothing reads them (an environment's purge takes its own).
    await removeSetsOf(prepared.entries.map((entry) => entry.item)).catch((error: unknown) =>
      logger.error('the entitlement sets of removed records were left behind', { error: error as Error }),
    );
    return removed;
  }

  /**
   * Reads what taking `records` out needs (one BatchGetItem per 100 keys, and a holder's token
   * register when it has one): their holders' tokens, put before them, and which of the counts
   * they may leave or drop exist.
   */
  async prepare(records: readonly PlacedItem[]): Promise<Prepared> {
    const accountOf = (item: PlacedItem) => item.accountId;
    const heads = new Map(
      records.filter(isHolder).map((holder) => [holder.PK, bearerTokensHeadKey(accountOf(holder), holder.type, holder.id)]),
    );
    // Counts a record's delete checks (what tells that nothing hangs on it), and counts it drops.
    const checked = records.flatMap((record) => checkedCounts(record, this.environments));
    // A license's core count exists only beside its machine count (cores come with machines); its
    // process count may not (a machine from before seats were counted holds no seat).
    const dropped = records
      .filter((record) => record.type === 'licenses')
      .map((license) => licenseProcessCountKey(accountOf(license), license.id));
    const found = new Set((await getItems([...heads.values(), ...checked, ...dropped])).map(keyName));
    const guarded = new Set(checked.map(keyName));
    const entries = (
      await Promise.all(
        records.map(async (item): Promise<Entry[]> => {
          const head = heads.get(item.PK);
          if (!head) return [{ item }];
          if (!found.has(keyName(head))) return [{ item, ...(this.rootRemoved ? {} : { register: { serial: undefined } }) }];
          const { serial, tokens } = await tokensOf(item);
          return [...tokens.map((token) => ({ item: token })), { item, register: { serial } }];
        }),
      )
    ).flat();
    return { entries, exists: (key) => found.has(keyName(key)) || (!this.rootRemoved && guarded.has(keyName(key))) };
  }

  /**
   * Chunks of entries, in order, each as large as fits in one transaction: measured on a
   * transaction built as the chunk grows (a count its records share is one operation).
   */
  private *chunks(prepared: Prepared): Generator<Prepared> {
    let probe = new Transaction();
    let entries: Entry[] = [];
    for (const entry of prepared.entries) {
      const add = () => {
        takeOut(probe, entry.item, { register: entry.register, exists: prepared.exists });
        expectNothingElse(probe, [entry.item], entry.item, this.environments, new StillHanging([]), prepared.exists);
      };
      add();
      if (entries.length > 0 && probe.size > MAX_OPERATIONS) {
        yield { entries, exists: prepared.exists };
        probe = new Transaction();
        entries = [];
        add();
      }
      entries.push(entry);
    }
    if (entries.length > 0) yield { entries, exists: prepared.exists };
  }

  /** Commits one chunk, retrying with the records still there when some changed meanwhile. */
  private async commit(chunk: Prepared): Promise<number> {
    let current = chunk;
    for (let attempt = 1; ; attempt++) {
      const still = new StillHanging(current.entries.map((entry) => entry.item).filter((item) => isRemovable(item.type)));
      const tx = this.build(current, still);
      if (tx.size > MAX_OPERATIONS && current.entries.length > 1) {
        const half = Math.ceil(current.entries.length / 2);
        const first = await this.commit({ ...current, entries: current.entries.slice(0, half) });
        return first + (await this.commit({ ...current, entries: current.entries.slice(half) }));
      }
      try {
        await tx.commit();
        return current.entries.filter((entry) => entry.item.type !== 'tokens').length;
      } catch (error) {
        if (error === still || !changedMeanwhile(error) || attempt >= ATTEMPTS) throw error;
        await backoff(attempt);
        current = await this.again(current.entries);
        if (current.entries.length === 0) return 0;
      }
    }
  }

  /**
   * The entries read again: the records still there as they are now, with their holders'
   * registers read again, and the tokens of holders left to a later chunk that are still there.
   */
  private async again(entries: Entry[]): Promise<Prepared> {
    const present = new Map((await readAgain(entries.map((entry) => entry.item))).map((item) => [item.PK, item]));
    const still = (entry: Entry) => present.get(entry.item.PK) ?? [];
    const prepared = await this.prepare(entries.filter((entry) => entry.item.type !== 'tokens').flatMap(still));
    const listed = new Set(prepared.entries.map((entry) => entry.item.PK));
    const tokens = entries
      .filter((entry) => entry.item.type === 'tokens')
      .flatMap(still)
      .filter((token) => !listed.has(token.PK));
    return { entries: [...tokens.map((item) => ({ item })), ...prepared.entries], exists: prepared.exists };
  }

  /** The transaction of one chunk: each entry taken out, with the expectations on what hangs on them. */
  private build(chunk: Prepared, still: StillHanging): Transaction {
    const tx = new Transaction();
    const items = chunk.entries.map((entry) => entry.item);
    for (const entry of chunk.entries) {
      takeOut(tx, entry.item, { register: entry.register, exists: chunk.exists });
      expectNothingElse(tx, items, entry.item, this.environments, still, chunk.exists);
    }
    return tx;
  }
}

interface Entry {
  item: PlacedItem;
  /** A holder's token register as read (its tokens are entries before it). */
  register?: { serial: number | undefined };
}

/** Records ready to be taken out (see prepare). */
export interface Prepared {
  entries: Entry[];
  /** Whether a count item may exist: one that does not needs no delete, and no check when nothing joins it. */
  exists: (key: Key) => boolean;
}

/** A failure a read of the records again may resolve: one removed or changed meanwhile, a token generated. */
const changedMeanwhile = (error: unknown) =>
  error instanceof TransactionCanceledException ||
  error instanceof ConditionalCheckFailedException ||
  error instanceof SeatChanged ||
  error instanceof RecordNotFound ||
  error instanceof Conflict;

/** The counts that tell whether anything hangs on `record` (see the top): a machine's process count and components' collections, a license's machine count, a policy's license collections, a product's policy collections. */
function checkedCounts(record: PlacedItem, environments: readonly (string | null)[]): Key[] {
  const accountId = record.accountId;
  const id = record.id;
  switch (record.type) {
    case 'machines':
      return [machineProcessCountKey(accountId, id), ...collectionCounts(record, 'components', environments)];
    case 'licenses':
      return [licenseMachineCountKey(accountId, id)];
    case 'policies':
      return collectionCounts(record, 'licenses', environments);
    case 'products':
      return collectionCounts(record, 'policies', environments);
    default:
      return [];
  }
}

/** The counters of the collection of `type` under `record`, one per environment its children may live in. */
function collectionCounts(record: PlacedItem, type: RecordType, environments: readonly (string | null)[]): Key[] {
  const collection = isRemovable(record.type) ? HANGING[record.type].find((candidate) => candidate.type === type) : undefined;
  if (!collection) throw new Error(`No collection of ${type} under ${String(record.type)}`);
  return environmentsUnder(record, environments).map((environmentId) => counterKey(childPartition(record, collection, environmentId)));
}

/** Members of the collection or count `key` among `together`. */
function membersIn(key: Key, record: PlacedItem, together: readonly PlacedItem[]): number {
  const id = record.id;
  if (key.PK.endsWith('#PROCESS_COUNT')) return together.filter((item) => item.type === 'processes' && item.machineId === id).length;
  if (key.PK.endsWith('#MACHINE_COUNT'))
    return together.filter((item) => item.type === 'machines' && item.licenseId === id && holdsSeat(item)).length;
  const partition = key.PK.slice('COUNT#'.length);
  return together.filter((item) => PARENT_INDEXES.some((index) => item[`${index}PK`] === partition)).length;
}

/**
 * Requires, in the transaction that deletes `record`, that nothing hangs on it but what the
 * transaction deletes too (`together`): see the top. A count that does not exist and that
 * nothing in the transaction leaves needs no check when `exists` says it cannot appear.
 */
export function expectNothingElse(
  tx: Transaction,
  together: readonly PlacedItem[],
  record: PlacedItem,
  environments: readonly (string | null)[],
  still: Error,
  exists: (key: Key) => boolean = () => true,
): void {
  for (const key of checkedCounts(record, environments)) {
    const members = membersIn(key, record, together);
    if (members > 0 || exists(key)) tx.expectCount(key, members, still);
  }
}
