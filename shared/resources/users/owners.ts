/**
 * A deleted user's owner links (docs/rules.md §13.1): the licenses, machines, components and
 * processes it owned stay, without an owner; its attachments to licenses go (§18.11). Each is written without `ownerId`, leaves the user's
 * owner collection (its index attributes, and the collection's count), and a license's key marker
 * stops naming the owner. As Keygen nullifies them, this is no change of the record's own: no
 * `<type>.updated` event, `updated` kept.
 *
 * When the user owns few records, they lose their owner in the transaction that deletes the
 * user, which requires the user's owner collections to hold just those (a record created with
 * that owner meanwhile fails it, and the delete lists again). Otherwise the user goes at once and
 * the cascades worker clears the links in bounded steps (shared/licensing/cascade.ts):
 * records can no longer be created with the deleted owner (each create requires its owner), so
 * the worker, listing after the commit, meets all of them. Meanwhile they still name the user,
 * who is gone: GET /licenses/<id>/owner answers null.
 *
 * What records carry of their license's owner for authorization (`licenseOwnerId`) is left as
 * it is: it names a user who no longer exists, and no bearer can act as that user.
 */
import { conflict } from '../../errors.ts';
import type { CascadeStep } from '../../licensing/cascade.ts';
import { type ChildCollection, childEnvironments, childPartition, environmentsUnder } from '../../licensing/graph.ts';
import { cascadeMarker } from '../../licensing/removal.ts';
import { collectionsUnder } from '../../licensing/slots.ts';
import { membersUpTo } from '../../store/cascade.ts';
import type { AccessPattern } from '../../store/data-model.ts';
import {
  collectionKeys,
  collectionName,
  collectionPartition,
  counterKey,
  environmentMembership,
  type Key,
  recordKey,
  uniqueKey,
} from '../../store/keys.ts';
import { backoff, type Item, itemOfType, type PlacedItem, readAgain, type StoredItem } from '../../store/records.ts';
import { MAX_OPERATIONS, Transaction } from '../../store/transaction.ts';
import { LICENSE_KEY_MARKER, licenseKeyValue } from '../licenses/entity.ts';
import { revokeTokensOf } from '../tokens/service.ts';
import type { UserRecord } from './entity.ts';

/** The owner collections of a user: those of every record that names a user as a parent. */
export const OWNED: readonly ChildCollection[] = collectionsUnder('users');

/** Records a user's delete clears the owner of in its own transaction at most. */
const IN_REQUEST = 25;
const ATTEMPTS = 3;
/** Records per transaction when the worker clears owner links. */
const CHUNK = 30;

/**
 * The owner a new record inherits was deleted, or its holder's owners changed (a license's owner
 * changed: shared/resources/licenses/owner.ts), while the record was being created (see unlessOwnerGone).
 */
class OwnerGone extends Error {}

/**
 * The error a create's condition on its holder's owners raises (a machine's on its license's
 * `ownerId`, a component's or a process's on its machine's `ownerId` and `licenseOwnerId`): the
 * create then reads its holder again (unlessOwnerGone).
 */
export const inheritedOwnersChanged = (): Error => new OwnerGone();

/** What a create requires of the machine it hangs on: still there, with the owners and the policy read. */
export const inheritedFrom = (machine: Item) => ({
  PK: machine.PK,
  ownerId: machine.ownerId ?? null,
  licenseOwnerId: machine.licenseOwnerId ?? null,
  policyId: machine.policyId,
});

/**
 * Requires, in the transaction creating a record, that the owner it inherits (its license's or its
 * machine's) still exists, so a deleted user's links, cleared after its delete, are never made anew.
 */
export function requireInheritedOwner(tx: Transaction, accountId: string, ownerId: string | null | undefined): void {
  if (ownerId) tx.requireExists(recordKey(accountId, 'users', ownerId), new OwnerGone());
}

/**
 * Runs a create once more when the owner it inherits went or changed meanwhile: read again, it
 * inherits the owners as they are (and finds its holder gone, if it went). A second such race: 409.
 */
export async function unlessOwnerGone<T>(create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (error) {
    if (!(error instanceof OwnerGone)) throw error;
  }
  try {
    return await create();
  } catch (error) {
    if (error instanceof OwnerGone) throw conflict('The owners this record inherits kept changing; retry the request');
    throw error;
  }
}

/** A record joined or left the user's owner collections while its delete was being written. */
class OwnedChanged extends Error {}
/** What the user owns does not fit in the transaction that deletes it. */
class TooMany extends Error {}

/**
 * Deletes `user`: its tokens revoked first, then one transaction with what `remove` writes (the
 * user's own delete and event), and its owner links cleared (see the top).
 */
export async function deleteOwner(user: StoredItem<UserRecord>, remove: (tx: Transaction) => Promise<void>): Promise<void> {
  const environments = await childEnvironments(user.accountId, user.environmentId ?? null);
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const owned = await ownedUpTo(user, environments, IN_REQUEST);
    if (!owned) break;
    const changed = new OwnedChanged();
    try {
      await revokeTokensOf(
        user,
        async (tx) => {
          await remove(tx);
          for (const record of owned) dropOwner(tx, record, user.id, changed);
          expectOwnedOnly(tx, user, environments, owned, changed);
          if (tx.size > MAX_OPERATIONS) throw new TooMany();
        },
        true,
      );
      return;
    } catch (error) {
      if (error instanceof TooMany) break;
      if (error !== changed) throw error;
    }
  }
  const message: CascadeStep = {
    kind: 'owner',
    accountId: user.accountId,
    root: { type: 'users', id: user.id, environmentId: user.environmentId ?? null },
    environments: [...environments],
  };
  await revokeTokensOf(
    user,
    async (tx) => {
      await remove(tx);
      tx.put(cascadeMarker(message));
    },
    true,
  );
}

/** What `user` owns, if at most `limit` records. */
const ownedUpTo = (user: PlacedItem, environments: readonly (string | null)[], limit: number) =>
  membersUpTo(
    OWNED.flatMap((collection) =>
      environmentsUnder(user, environments).map((environmentId) => ({
        slot: collection.slot,
        partition: childPartition(user, collection, environmentId),
      })),
    ),
    limit,
  );

/** Requires the user's owner collections to hold just `together` (whose owner the transaction clears). */
function expectOwnedOnly(
  tx: Transaction,
  user: PlacedItem,
  environments: readonly (string | null)[],
  together: readonly Item[],
  changed: Error,
) {
  for (const collection of OWNED) {
    const index = `${collectionKeys(collection.slot)}PK`;
    for (const environmentId of environmentsUnder(user, environments)) {
      const partition = childPartition(user, collection, environmentId);
      tx.expectCount(counterKey(partition), together.filter((item) => item[index] === partition).length, changed);
    }
  }
}

/**
 * Writes into `tx` that `record` no longer has `userId` as its owner (see the top); `changed` if it
 * changed meanwhile. A user's attachment to a license is no owned record but the user's place
 * among the license's users (docs/rules.md §18.11): it goes with the user.
 */
function dropOwner(tx: Transaction, record: PlacedItem, userId: string, changed: Error): void {
  if (record.type === 'license-users') tx.delete(record, changed, { ownerId: userId });
  else moveOwner(tx, record, userId, null, changed);
}

/**
 * Writes into `tx` that `record`'s owner is `to` (null: none) instead of `from` (null: none): its
 * `ownerId`, its place among the owner collections (the index attributes, and the two
 * collections' counts) and, for a license, what its key's marker carries; with `also` written
 * beside. `changed` if the record's owner is no longer `from`, or the record went, meanwhile.
 */
export function moveOwner(
  tx: Transaction,
  record: PlacedItem,
  from: string | null,
  to: string | null,
  changed: Error,
  also: Record<string, unknown> = {},
): PlacedItem {
  const slot = OWNED.find((collection) => collection.type === record.type)?.slot;
  if (slot === undefined) throw new Error(`A ${String(record.type)} record has no owner`);
  const index = collectionKeys(slot);
  const environmentId = record.environmentId ?? null;
  const membership = environmentId ? environmentMembership(record.accountId, environmentId) : undefined;
  const left = record[`${index}PK`];
  const joined =
    to === null ? null : collectionPartition(record.accountId, environmentId, collectionName(record.type, { type: 'users', id: to }));
  const moved = from !== to;
  const written = tx.update(
    record,
    { ...also, ownerId: to, ...(moved ? { [`${index}PK`]: joined, [`${index}SK`]: joined && record.GSI1SK } : {}) },
    { missing: changed, unchanged: { ownerId: from }, conflict: changed },
  );
  if (moved && typeof left === 'string') tx.tally(counterKey(left), -1, { membership });
  if (moved && joined) tx.tally(counterKey(joined), 1, { membership });
  const license = itemOfType('licenses', record);
  if (license && moved) {
    const marker: Key = uniqueKey(license.accountId, LICENSE_KEY_MARKER, licenseKeyValue(license.key));
    // Only while the marker is the license's: a license deleted meanwhile leaves none to rewrite.
    tx.patch(marker, { ownerId: to }, {}, { state: { ref: record.PK }, changed });
  }
  return written as PlacedItem;
}

/** Clears `userId` from the owner of `records` (the cascades worker's pages), a chunk per transaction, records changed meanwhile read again. */
export async function dropOwners(records: readonly PlacedItem[], userId: string): Promise<number> {
  let cleared = 0;
  for (let i = 0; i < records.length; i += CHUNK) {
    let chunk = records.slice(i, i + CHUNK).filter((record) => record.ownerId === userId);
    for (let attempt = 1; chunk.length > 0; attempt++) {
      const changed = conflict('an owned record changed meanwhile');
      const tx = new Transaction();
      for (const record of chunk) dropOwner(tx, record, userId, changed);
      try {
        await tx.commit();
        cleared += chunk.length;
        break;
      } catch (error) {
        if (error !== changed || attempt >= ATTEMPTS + 2) throw error;
        await backoff(attempt);
        chunk = (await readAgain(chunk)).filter((record) => record.ownerId === userId);
      }
    }
  }
  return cleared;
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 59,
    name: "Clear a deleted user's owner links",
    operation:
      "BatchGetItem of the counters of the user's owner collections (in its environment, or for a global user also every SHARED one), then Query of those holding any. 25 records or fewer: in the user's delete TransactWriteItems, UpdateItem of each `REMOVE ownerId, GSI<n>PK, GSI<n>SK` if `ownerId = :user`, `ADD n :-1` of its owner counter, and of a license's key marker `REMOVE ownerId` if `ref = :license`, with `n = :cleared` on every owner counter (a record created with that owner meanwhile fails it, and the delete lists again). More: the delete puts a cascade marker (57) and the worker pages through the owner collections, 30 records a transaction; then the empty owner counters go (DeleteItem if `n <= 0`). No event; `updated` kept",
    index: 'table; GSI4, GSI5',
    key: '`GSI4PK = A#<acct>#E#<env>#USER#<id>#LICENSE` (and `…#MACHINE`), `GSI5PK = …#USER#<id>#COMPONENT` (and `…#PROCESS`)',
    usedBy: 'users.delete, workers.cascade (`shared/resources/users/owners.ts`)',
    tests: ['http/cascades'],
  },
];
