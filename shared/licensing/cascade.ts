/**
 * The cascades worker's work: what hangs on a record removed at once (removal.ts), or a deleted
 * user's owner links (shared/resources/users/owners.ts), taken care of in bounded steps from the
 * `cascades` queue, with the protocol of shared/resumable.ts on the cascade's marker: each
 * message one numbered step claimed with a lease, safe to run twice, continued in a new message
 * when the invocation's time runs low, in two passes (the second, a little later, meets what an
 * index had not shown yet to the first).
 *
 * A step reads the collections of the removed record (or the user's owner collections), one
 * environment at a time, a page at a time, and takes each page out (batches.ts: deepest first,
 * in transactions of at most 100 operations, the counts given back as a removal in the request
 * would) or clears its owner. A policy's collections hold only its licenses: those that anything
 * hangs on (their counts tell) go one by one, each after what hangs on it, the others together. A
 * record something still hangs on (written before the removal, but not shown by the index yet)
 * has that taken out first.
 *
 * When both passes are done, the counts the removed record's descendants were counted in (a
 * license's seats and processes, a machine's processes) go, and the record leaves the register
 * of removals under way (shared/store/removals.ts): only then do its descendants stop being
 * hidden from reads, which no longer find any.
 */
import { logger } from '../logger.ts';
import { dropMachineProcessCount } from '../resources/processes/counts.ts';
import { dropOwners, OWNED } from '../resources/users/owners.ts';
import { runStep, type StepOutcome, type Stepped } from '../resumable.ts';
import { collectionPage } from '../store/cascade.ts';
import type { AccessPattern } from '../store/data-model.ts';
import { cascadeMarkerKey, counterKey, type RecordType, recordKey } from '../store/keys.ts';
import { getItem, getItems, type PlacedItem } from '../store/records.ts';
import { clearRemoval } from '../store/removals.ts';
import { deleteEmptyCounts, Transaction } from '../store/transaction.ts';
import { Batches, type Prepared, StillHanging } from './batches.ts';
import { type ChildCollection, childPartition, environmentsUnder, HANGING, isRemovable } from './graph.ts';
import { dropCountsOfLicense } from './teardown.ts';

export interface CascadeStep extends Stepped {
  /** What hangs on a removed record, or a deleted user's owner links. */
  kind: 'removal' | 'owner';
  accountId: string;
  /** The record removed (a product, policy, license or machine), or the user deleted. */
  root: { type: RecordType; id: string; environmentId: string | null };
  /** The environments the root's descendants may live in (childEnvironments, as at the removal). */
  environments: (string | null)[];
  /** The stage (a collection in one environment) the step starts at, and where in it. */
  stage?: number;
  after?: Record<string, unknown>;
}

/**
 * Records read at a time: a page goes in transactions as full as they can be, but for its last,
 * so a page of many transactions wastes little.
 */
const PAGE = 500;
/** Stop taking new pages when less than this is left of the invocation. */
const RESERVE_MS = 20_000;
const SECOND_PASS_DELAY_SECONDS = 10;

/** Runs one step of a cascade; `removed`: the records taken out (or whose owner was cleared) by it. */
export async function runCascadeStep(message: CascadeStep, remainingMs: () => number): Promise<{ removed: number; outcome: StepOutcome }> {
  const log = { accountId: message.accountId, kind: message.kind, rootId: message.root.id };
  const root = rootOf(message);
  if (await getItem({ PK: root.PK, SK: root.SK })) {
    logger.warn('cascade refused: its record still exists', { ...log, step: message.step ?? 1 });
    return { removed: 0, outcome: 'skipped' };
  }
  let removed = 0;
  const count = (n: number) => {
    removed += n;
  };
  const started = Date.now();
  const outcome = await runStep<CascadeStep>({
    queue: 'cascades',
    name: 'cascade',
    marker: cascadeMarkerKey(message.accountId, message.root.id),
    message,
    secondPass: (first) => ({ ...first, stage: undefined, after: undefined }),
    secondPassDelaySeconds: SECOND_PASS_DELAY_SECONDS,
    log,
    work: async (current) => {
      const next = await work(current, root, () => remainingMs() > RESERVE_MS, count);
      const seconds = (Date.now() - started) / 1000;
      logger.info('cascade progress', {
        ...log,
        step: current.step,
        pass: current.pass,
        removed,
        perSecond: Math.round(removed / Math.max(seconds, 0.001)),
      });
      return next;
    },
    finish: () => finish(message, root),
  });
  return { removed, outcome };
}

/** The removed record (or the deleted user) as far as its key and place tell it. */
const rootOf = ({ accountId, root }: CascadeStep): PlacedItem => ({
  ...recordKey(accountId, root.type, root.id),
  accountId,
  type: root.type,
  id: root.id,
  environmentId: root.environmentId,
});

/** The collections a cascade goes through, each in each environment, in order. */
function stagesOf(message: CascadeStep, root: PlacedItem): { collection: ChildCollection; environmentId: string | null }[] {
  const collections = message.kind === 'owner' ? OWNED : isRemovable(root.type) ? HANGING[root.type] : [];
  return collections.flatMap((collection) =>
    environmentsUnder(root, message.environments).map((environmentId) => ({ collection, environmentId })),
  );
}

/** As much of the pass as the time allows (see the top): the message to go on with, or undefined when the pass is done. */
async function work(
  message: CascadeStep,
  root: PlacedItem,
  hasTime: () => boolean,
  count: (n: number) => void,
): Promise<CascadeStep | undefined> {
  const stages = stagesOf(message, root);
  const batches = new Batches(message.environments, true);
  const first = message.stage ?? 0;
  for (let stage = first; stage < stages.length; stage++) {
    const { collection, environmentId } = stages[stage] as (typeof stages)[number];
    const partition = childPartition(root, collection, environmentId);
    // Pages of records of one type: the next one is read (and made ready) while this one goes.
    const read = (after: Record<string, unknown> | undefined) => readPage(message, root, batches, collection.slot, partition, after);
    let after = stage === first ? message.after : undefined;
    // A step always takes its first page; a further stage only with time left.
    if (stage > first && !hasTime()) return { ...message, stage, after };
    let page = await read(after);
    for (;;) {
      const upcoming = page.after && hasTime() ? read(page.after) : undefined;
      upcoming?.catch(() => {});
      const done = await takePage(message, root, page, batches, hasTime, count);
      // Out of time within the page: the next step reads it again (what went is not read again).
      if (!done) return { ...message, stage, after };
      after = page.after;
      if (!after) break;
      if (!upcoming) return { ...message, stage, after };
      page = await upcoming;
    }
  }
  return undefined;
}

/** A page of a stage, and for a plain removal what taking its records out needs, read with it. */
interface Page {
  items: PlacedItem[];
  after?: Record<string, unknown>;
  ready?: Prepared;
}

async function readPage(
  message: CascadeStep,
  root: PlacedItem,
  batches: Batches,
  slot: number,
  partition: string,
  after: Record<string, unknown> | undefined,
): Promise<Page> {
  const page = await collectionPage(slot, partition, PAGE, after);
  const plain = message.kind === 'removal' && root.type !== 'policies';
  return plain ? { ...page, ready: await batches.prepare(page.items) } : page;
}

/** Takes care of one page of a stage: its records' owner cleared, or the records taken out. False when the time ran out. */
async function takePage(
  message: CascadeStep,
  root: PlacedItem,
  page: Page,
  batches: Batches,
  hasTime: () => boolean,
  count: (n: number) => void,
): Promise<boolean> {
  if (message.kind === 'owner') {
    count(await dropOwners(page.items, root.id));
    return true;
  }
  // A policy's collections hold its licenses alone: each goes with what hangs on it.
  if (root.type === 'policies') return eachWithDescendants(page.items, batches, hasTime, count);
  return takeOutAll(page.items, batches, hasTime, count, page.ready);
}

/** Takes `records` out; when something still hangs on some of them, that goes first. False when the time ran out. */
async function takeOutAll(
  records: PlacedItem[],
  batches: Batches,
  hasTime: () => boolean,
  count: (n: number) => void,
  ready?: Prepared,
): Promise<boolean> {
  try {
    count(await batches.remove(ready ?? records));
    return true;
  } catch (error) {
    if (!(error instanceof StillHanging)) throw error;
    logger.warn('records still hung on records being removed: those go first', { recordIds: error.records.map((record) => record.id) });
  }
  // Each of them after what hangs on it, read from its collections whatever their counts say.
  for (const record of records.filter((candidate) => isRemovable(candidate.type))) {
    if (!(await withDescendants(record, batches, hasTime, count))) return false;
  }
  count(await batches.remove(records.filter((record) => !isRemovable(record.type))));
  return true;
}

/**
 * Takes each record out after what hangs on it: those whose collections' counts say something
 * hangs on them one by one, the others together. False when the time ran out.
 */
async function eachWithDescendants(
  records: PlacedItem[],
  batches: Batches,
  hasTime: () => boolean,
  count: (n: number) => void,
): Promise<boolean> {
  const laden = await ladenAmong(records, batches.environments);
  for (const record of records.filter((candidate) => laden.has(candidate.PK))) {
    if (!(await withDescendants(record, batches, hasTime, count))) return false;
  }
  return takeOutAll(
    records.filter((candidate) => !laden.has(candidate.PK)),
    batches,
    hasTime,
    count,
  );
}

/** The keys (PK) of those of `records` whose collections hold anything, by their counts (one BatchGetItem per 100). */
async function ladenAmong(records: PlacedItem[], environments: readonly (string | null)[]): Promise<Set<string>> {
  const partitions = records.flatMap((record) =>
    isRemovable(record.type)
      ? HANGING[record.type].flatMap((collection) =>
          environmentsUnder(record, environments).map((environmentId) => ({
            record,
            counter: counterKey(childPartition(record, collection, environmentId)),
          })),
        )
      : [],
  );
  const held = new Set(
    (await getItems(partitions.map(({ counter }) => counter))).filter((count) => Number(count.n ?? 0) > 0).map((count) => count.PK),
  );
  return new Set(partitions.filter(({ counter }) => held.has(counter.PK)).map(({ record }) => record.PK));
}

/** Takes out what hangs on `record`, page by page, then `record`. False when the time ran out first. */
async function withDescendants(record: PlacedItem, batches: Batches, hasTime: () => boolean, count: (n: number) => void): Promise<boolean> {
  if (!isRemovable(record.type)) {
    count(await batches.remove([record]));
    return true;
  }
  for (const collection of HANGING[record.type]) {
    for (const environmentId of environmentsUnder(record, batches.environments)) {
      let after: Record<string, unknown> | undefined;
      do {
        if (!hasTime()) return false;
        const page = await collectionPage(collection.slot, childPartition(record, collection, environmentId), PAGE, after);
        const done =
          record.type === 'policies'
            ? await eachWithDescendants(page.items, batches, hasTime, count)
            : await takeOutAll(page.items, batches, hasTime, count);
        if (!done) return false;
        after = page.after;
      } while (after);
    }
  }
  count(await batches.remove([record]));
  return true;
}

/**
 * Once both passes are done: a removed license's or machine's counts that its descendants were
 * counted in go, and the removal leaves the register; a deleted user's owner collections' counts,
 * empty now, go.
 */
async function finish(message: CascadeStep, root: PlacedItem): Promise<void> {
  if (message.kind === 'owner') {
    const counts = stagesOf(message, root).map(({ collection, environmentId }) =>
      counterKey(childPartition(root, collection, environmentId)),
    );
    await deleteEmptyCounts(counts);
    return;
  }
  const tx = new Transaction();
  if (root.type === 'licenses') dropCountsOfLicense(tx, root);
  if (root.type === 'machines') dropMachineProcessCount(tx, root);
  await tx.commit();
  await clearRemoval(message.accountId, message.root.id);
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 57,
    name: 'A cascade in numbered steps',
    operation:
      "The removal's TransactWriteItems puts the marker (completed 0) with the record's delete, its markers and tokens, its event and its register entry (56); SendMessage of step 1 after the commit. Each step: UpdateItem claiming it (`SET lease, leaseUntil` if `completed = :previous` and no live lease; a step done already is skipped, one running elsewhere retried later); Query (500 a page, from the message's cursor) of the removed record's collections in order (products: processes, components, machines, licenses, policies; licenses: processes, components, machines; machines: processes, components; policies: licenses, each taken out after its own collections), per environment; each page made ready (BatchGetItem of its holders' token heads and of the counts its records drop or check) while the previous one is taken out (58); SendMessage of the next step where it stopped (or of the second pass, 10 s later), then UpdateItem `SET completed` (a crash in between runs the step again). After the second pass: DeleteItem of the counts the record's descendants were counted in (a license's machine, core and process counts, a machine's process count), UpdateItem of the register (56), DeleteItem of the marker",
    index: 'table; GSI2–GSI5',
    key: '`PK = A#<acct>#CASCADE#<recordId>`; the collections as 27–32 and 53',
    usedBy: 'workers.cascade (`shared/licensing/cascade.ts`; the step protocol, shared with the purge: `shared/resumable.ts`)',
    tests: ['unit/resumable', 'unit/purge-environment', 'http/cascades', 'bench/cascade'],
  },
];
