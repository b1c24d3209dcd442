/**
 * Removing a product, a policy, a license or a machine removes what hangs on it (docs/rules.md §10,
 * graph.ts), in one of two ways:
 *
 * - In its request, when what hangs on it is small (at most IN_REQUEST records): those records
 *   deepest first, then the record itself, each transaction requiring that nothing hangs on what it
 *   deletes but what it deletes too (batches.ts). A child created meanwhile fails that
 *   transaction, and the removal lists again and takes it along; a removal that keeps losing that
 *   race goes the other way.
 * - At once, with the rest to follow: the record goes in the request's transaction with its
 *   uniqueness markers, its tokens and its own event (so its key, code or fingerprint is free at
 *   once), enters the register of removals under way (shared/store/removals.ts: everything that
 *   hangs on it is gone for every read from then on), and the cascades worker removes its
 *   descendants in bounded steps (cascade.ts). Creates under it are refused from that moment (each
 *   create requires its whole ancestry), so the worker, which lists only after the commit, meets
 *   every descendant. The counts its descendants are counted in (a license's seats, a machine's
 *   processes) stay until they have gone.
 *
 * Either way only the record announces itself (`<type>.deleted`, in its own transaction), its
 * descendants go without events (batches.ts), and the entitlements attached to the policies and
 * licenses removed go once they have.
 */
import { conflict } from '../errors.ts';
import { logger } from '../logger.ts';
import { CASCADE_MARKER_TYPE } from '../outbox/entries.ts';
import { removeSetsOf } from '../resources/entitlements/attachments.ts';
import { SeatChanged } from '../resources/machines/seats.ts';
import { now } from '../resources/rules.ts';
import { tokensOf } from '../resources/tokens/service.ts';
import { membersUpTo } from '../store/cascade.ts';
import type { AccessPattern } from '../store/data-model.ts';
import { RecordNotFound } from '../store/errors.ts';
import { accountKey, cascadeMarkerKey } from '../store/keys.ts';
import { getItem, type PlacedItem } from '../store/records.ts';
import { MAX_REMOVALS_UNDER_WAY, registerRemoval, removedIn } from '../store/removals.ts';
import { Transaction } from '../store/transaction.ts';
import { Batches, expectNothingElse, StillHanging } from './batches.ts';
import type { CascadeStep } from './cascade.ts';
import { childEnvironments, childPartition, environmentsUnder, HANGING, isRemovable } from './graph.ts';
import { takeOut } from './teardown.ts';

/** Records a removal takes out in its own request at most; beyond, they are the cascades worker's. */
export const IN_REQUEST = 100;
/** Listings a removal in its request makes when creates keep joining what it removes. */
const ATTEMPTS = 3;

/**
 * Removes `item` with what hangs on it (see the top); `announce` adds the record's own event to
 * the transaction that deletes it. A machine whose cores changed since it was read fails with
 * SeatChanged (its delete gives back the cores it counts as read: seats.ts).
 */
export async function removeWithDescendants(item: PlacedItem, announce: (tx: Transaction) => Promise<unknown>): Promise<void> {
  if (!isRemovable(item.type)) throw new Error(`A ${String(item.type)} record has no descendants to remove`);
  const environments = await childEnvironments(item.accountId, item.environmentId ?? null);
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const descendants = await descendantsUpTo(item, environments, IN_REQUEST);
    if (!descendants) break;
    try {
      await new Batches(environments).remove(descendants);
      await removeLast(item, environments, announce);
      return;
    } catch (error) {
      if (!(error instanceof StillHanging)) throw error;
    }
  }
  await removeAtOnce(item, environments, announce);
}

/** The error a removable record's own delete fails with when it changed or went meanwhile. */
const missingOf = (item: PlacedItem) => (item.type === 'machines' ? new SeatChanged() : new RecordNotFound(item.type, item.id));

/** The record itself, once nothing hangs on it: with its tokens, its event, and nothing joined meanwhile. */
async function removeLast(item: PlacedItem, environments: readonly (string | null)[], announce: (tx: Transaction) => Promise<unknown>) {
  const register = await tokensRemoved(item, environments);
  const tx = new Transaction();
  takeOut(tx, item, { missing: missingOf(item), register });
  expectNothingElse(tx, [item], item, environments, new StillHanging([item]));
  await announce(tx);
  await tx.commit();
  await removeSetsOf([item]).catch((error: unknown) =>
    logger.error('the entitlement sets of a removed record were left behind', { recordId: item.id, error: error as Error }),
  );
}

/**
 * A product's or a license's tokens, removed before the record (they stop working at once); the
 * register's serial as read, which the record's delete requires unchanged.
 */
async function tokensRemoved(
  item: PlacedItem,
  environments: readonly (string | null)[],
): Promise<{ serial: number | undefined } | undefined> {
  if (item.type !== 'products' && item.type !== 'licenses') return undefined;
  const { serial, tokens } = await tokensOf(item);
  if (tokens.length > 0) await new Batches(environments).remove(tokens);
  return { serial };
}

/**
 * What hangs on `item`, deepest first, if there are at most `limit` records: a policy's licenses
 * each after their own descendants; for the other types, the collections of `item` in order.
 */
async function descendantsUpTo(
  item: PlacedItem,
  environments: readonly (string | null)[],
  limit: number,
): Promise<PlacedItem[] | undefined> {
  const members = await membersOf([item], environments, limit);
  if (!members || item.type !== 'policies') return members;
  const below = await membersOf(members, environments, limit - members.length);
  return below && [...below, ...members];
}

/** The members of the collections of `parents` (HANGING, each parent's in order), if there are at most `limit`. */
const membersOf = (parents: readonly PlacedItem[], environments: readonly (string | null)[], limit: number) =>
  membersUpTo(
    parents.flatMap((parent) =>
      isRemovable(parent.type)
        ? HANGING[parent.type].flatMap((collection) =>
            environmentsUnder(parent, environments).map((environmentId) => ({
              slot: collection.slot,
              partition: childPartition(parent, collection, environmentId),
            })),
          )
        : [],
    ),
    limit,
  );

/**
 * The record goes at once, in one transaction with its markers, tokens and event and its entry in
 * the register of removals under way; the cascades worker removes the rest (cascade.ts).
 */
async function removeAtOnce(item: PlacedItem, environments: readonly (string | null)[], announce: (tx: Transaction) => Promise<unknown>) {
  const accountId = item.accountId;
  if (removedIn(await getItem(accountKey(accountId))).size >= MAX_REMOVALS_UNDER_WAY) {
    throw conflict('Too many large removals are under way in this account; retry in a moment');
  }
  const register = await tokensRemoved(item, environments);
  const message: CascadeStep = {
    kind: 'removal',
    accountId,
    root: {
      type: item.type,
      id: item.id,
      environmentId: item.environmentId ?? null,
    },
    environments: [...environments],
  };
  const tx = new Transaction();
  takeOut(tx, item, { missing: missingOf(item), register, keepHeldCounts: true });
  registerRemoval(tx, item);
  tx.put(cascadeMarker(message));
  await announce(tx);
  await tx.commit();
  await removeSetsOf([item]).catch((error: unknown) =>
    logger.error('the entitlement sets of a removed record were left behind', { recordId: item.id, error: error as Error }),
  );
}

/**
 * A cascade's marker: its first step is sent from the table's stream once the removal commits
 * (the outbox relay, shared/outbox/entries.ts), and the worker's steps are claimed on it.
 */
export const cascadeMarker = (message: CascadeStep) => ({
  ...cascadeMarkerKey(message.accountId, message.root.id),
  type: CASCADE_MARKER_TYPE,
  ...message,
  requested: now(),
  completed: 0,
});

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 34,
    name: 'Everything under a removed record',
    operation:
      "BatchGetItem of the counters of its collections, then Query of those holding any (deepest first), in the record's environment and, for a global record, every SHARED environment: 100 records or fewer go in its request (58); more, the record goes at once and the cascades worker takes the rest (56, 57)",
    index: 'GSI2–GSI4',
    key: 'as 27–32, and tokens as 35',
    usedBy:
      "product, policy, license, machine delete, licenses.revoke, the heartbeat sweeper's culls; workers.cascade (`shared/licensing/removal.ts`, `cascade.ts`)",
    tests: ['http/products', 'http/policies', 'http/machines', 'http/components-uniqueness', 'http/licensing-isolation', 'http/cascades'],
  },
  {
    n: 58,
    name: 'Take records out with nothing left hanging',
    operation:
      "TransactWriteItems of up to 100 operations (measured as the chunk grows), deepest first: Delete of each record (`attribute_exists(PK)`; a machine also `countedCores = :read`) with its markers, its collection counts and holder counts, and what its type holds (a token's lookup and register entry; a machine's seat, cores and fingerprint entry; a product's or license's token register, Delete if `serial = :read`); and, for each parent deleted, that nothing hangs on it but what the transaction deletes: `n = :members` (`attribute_not_exists(n) OR n = :0` when none) on a machine's process count and its components' collection counters, a license's machine count, a policy's license counters, a product's policy counters (by induction, nothing below). A record changed or gone meanwhile: read again and retried. In the request, when 100 records or fewer hang on the record: BatchGetItem of its collections' counters, Query of those holding any, the transactions, then the record's own; a child created meanwhile fails one and the removal lists again. Every create of a policy, license, machine, component, process or license token: ConditionCheck that each ancestor still exists (and the owner it names or inherits), so nothing is created under a record once it is deleted",
    index: 'table; GSI2–GSI5',
    key: '`PK = COUNT#<collection partition>`, `A#<acct>#LICENSE#<id>#MACHINE_COUNT`, `A#<acct>#MACHINE#<id>#PROCESS_COUNT`; records as 3',
    usedBy:
      "product, policy, license, machine delete, licenses.revoke, the heartbeat sweeper's culls, workers.cascade (`shared/licensing/batches.ts`, `removal.ts`); every create under a parent (`requireAncestry`)",
    tests: ['http/cascades', 'http/products', 'http/policies', 'http/machines', 'http/processes'],
  },
];
