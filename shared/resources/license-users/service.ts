/**
 * A license's users (docs/rules.md §18.11): `GET|POST|DELETE /licenses/<id>/users`, as Keygen 1.5
 * attaches them. Who may: the policy of a license's users (policy.ts).
 *
 * An attach is all or nothing. Every user named is checked first (each exists and may be named,
 * none is the owner or attached already, once in the request), then the attachments are made up
 * to 25 a transaction, each on condition that its user still exists, the license still has the
 * owner read, and the license's users stay within its `maxUsers` (the counter's own update judges
 * it, so concurrent attaches cannot pass it together). Should a later transaction fail, what the
 * earlier ones made is deleted again before the refusal is answered. A detach converges instead:
 * what it names is detached whatever happens meanwhile, a chunk at a time.
 */
import type { Actor } from '../../auth/actor.ts';
import { authorize, present } from '../../auth/authorize.ts';
import { conflict, refused, ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { licenseNamed } from '../../licensing/aliases.ts';
import { requireAncestry } from '../../licensing/graph.ts';
import { handOver } from '../../licensing/hand-over.ts';
import { parentIn, parentsOf, slotOf } from '../../licensing/slots.ts';
import { collectionSortKey, recordKey } from '../../store/keys.ts';
import { listCollection, type Page, type PageRequest } from '../../store/paging.ts';
import {
  backoff,
  getItems,
  getVisibleItems,
  isUuid,
  itemOfType,
  type PlacedItem,
  readAgain,
  type StoredItem,
  toRecord,
} from '../../store/records.ts';
import { MAX_OPERATIONS, Transaction } from '../../store/transaction.ts';
import { type LicenseRecord, maxUsersOf } from '../licenses/entity.ts';
import { policyOf } from '../policies/beside.ts';
import { allowance, limitsOf } from '../policies/limits.ts';
import { newRecord } from '../rules.ts';
import type { UserRecord } from '../users/entity.ts';
import { moveOwner } from '../users/owners.ts';
import { licenseUserDocument } from './document.ts';
import { type LicenseUserRecord, licenseUserId, licenseUserKey } from './entity.ts';
import { namable } from './membership.ts';

/**
 * What an attachment costs a transaction (operations each, and those of the transaction whatever
 * its size): made, a Put, its user's count and a check of its user, besides the counts of the
 * license's, the product's and the type's collections and the checks of the license, its policy
 * and its product; removed, a Delete and its user's count, besides the three collection counts.
 */
const ATTACH_COST = { each: 3, fixed: 6 };
const DETACH_COST = { each: 2, fixed: 3 };
/** Attachments per transaction at most, the last one's event aside. */
const CHUNK = 25;
const ATTEMPTS = 5;

/**
 * `items` in chunks of at most CHUNK, the last one small enough for its transaction to carry the
 * event `announce` writes as well (its size depends on the endpoints listening) within
 * DynamoDB's 100 operations.
 */
async function chunked<T>(
  items: readonly T[],
  cost: { each: number; fixed: number },
  announce: (tx: Transaction) => Promise<unknown>,
): Promise<{ chunk: T[]; last: boolean }[]> {
  const measured = new Transaction();
  await announce(measured);
  const room = Math.min(CHUNK, Math.floor((MAX_OPERATIONS - measured.size - cost.fixed) / cost.each));
  if (room < 1) throw new Error('An event too large to go with any change');
  const tail = Math.min(room, items.length);
  const chunks: { chunk: T[]; last: boolean }[] = [];
  for (let i = 0; i < items.length - tail; i += CHUNK)
    chunks.push({ chunk: items.slice(i, Math.min(i + CHUNK, items.length - tail)), last: false });
  chunks.push({ chunk: items.slice(items.length - tail), last: true });
  return chunks;
}

/** A user named in a body: `{type: "users", id}`. */
export interface UserRef {
  id: string;
}

const pointer = (index: number) => `/data/${index}`;

/** The license the path names (by id or key), on which the bearer may do `action` (404 unseen, 403 refused). */
async function licenseFor(actor: Actor, idOrKey: string, action: 'list' | 'attach' | 'detach'): Promise<StoredItem<LicenseRecord>> {
  const license = await licenseNamed(actor, idOrKey);
  await authorize(actor, 'license-users', license, action);
  return license;
}

/** GET /licenses/<id>/users: the users attached, newest attachment first, each as the rules of users show it. */
export async function listLicenseUsers(actor: Actor, idOrKey: string, page: PageRequest): Promise<Page<UserRecord>> {
  const license = await licenseFor(actor, idOrKey, 'list');
  const { accountId } = license;
  const listed = await listCollection(
    actor.scope,
    { type: 'license-users', parent: parentIn('license-users', 'license', license.id) },
    page,
    {
      beside: (entry) => [recordKey(accountId, 'users', entry.ownerId as string)],
    },
  );
  const users = new Map((listed.beside ?? []).flatMap((item) => (item.type === 'users' ? [[item.id as string, item]] : [])));
  const records = listed.records.flatMap((attachment) => {
    const user = users.get(attachment.ownerId);
    return user ? [present(actor, 'users', toRecord('users', user))] : [];
  });
  return { ...listed, records, beside: undefined };
}

/**
 * POST /licenses/<id>/users: attaches the users named (see the top), answered as the attachments
 * made, with the event `license.users.attached`.
 */
export async function attachUsers(actor: Actor, idOrKey: string, named: readonly UserRef[]): Promise<LicenseUserRecord[]> {
  const license = await licenseFor(actor, idOrKey, 'attach');
  const users = await usersToAttach(actor, license, named);
  const policy = await policyOf(license);
  const limit = allowance(maxUsersOf(license, policy), limitsOf(policy).overageStrategy);
  // The owner is one of the license's users (Keygen counts it): the attachments may fill the rest.
  const room = limit === null ? null : limit - (license.ownerId ? 1 : 0);
  const made: LicenseUserRecord[] = users.map((user) => ({
    ...newRecord('license-users', actor.scope),
    id: licenseUserId(license.id, user.id),
    licenseId: license.id,
    ownerId: user.id,
    policyId: license.policyId,
    productId: license.productId,
  }));
  const limitExceeded = ruleBroken(
    'LICENSE_USER_LIMIT_EXCEEDED',
    `user count has exceeded maximum allowed for license (${maxUsersOf(license, policy)})`,
    '/data',
  );
  const origin = originOf(license, actor.scope);
  const announce = (tx: Transaction) => emitEvent(tx, origin, 'license.users.attached', made.map(licenseUserDocument));
  // The owner and the policy read are the ones counted and carried; a license removed meanwhile (or being removed) takes no users.
  const changed = conflict("The license's owner or policy changed, or the license went, while this request was made; retry it");
  const committed: LicenseUserRecord[] = [];
  try {
    for (const { chunk, last } of await chunked(made, ATTACH_COST, announce)) {
      const tx = new Transaction();
      for (const attachment of chunk) {
        const index = made.indexOf(attachment);
        tx.create(attachment, {
          parents: parentsOf('license-users', { license: license.id, owner: attachment.ownerId, product: license.productId }),
          // In its user's collection it stands for its license: sorted as the license, merged with those the user owns.
          sortedAs: { slot: slotOf('license-users', 'owner'), sortKey: collectionSortKey(license.created, license.id) },
          exists: ruleBroken('USER_TAKEN', 'already exists', pointer(index)),
        });
        tx.requireExists(recordKey(license.accountId, 'users', attachment.ownerId), userNotFound(attachment.ownerId, index));
      }
      if (room !== null) {
        tx.cap(
          license.accountId,
          license.environmentId ?? null,
          'license-users',
          { type: 'licenses', id: license.id },
          room,
          limitExceeded,
        );
      }
      const held = { PK: license.PK, ownerId: license.ownerId ?? null, policyId: license.policyId };
      tx.requireState({ PK: license.PK, SK: license.SK }, held, changed);
      requireAncestry(tx, made[0] as LicenseUserRecord, ['products', 'policies'], changed);
      if (last) await announce(tx);
      await tx.commit();
      committed.push(...chunk);
    }
  } catch (error) {
    await undo(license, committed);
    throw error;
  }
  return made;
}

/** The users an attach names, each checked (see the top), in the order named. */
async function usersToAttach(
  actor: Actor,
  license: StoredItem<LicenseRecord>,
  named: readonly UserRef[],
): Promise<StoredItem<UserRecord>[]> {
  const found = new Map(
    (
      await getVisibleItems(
        actor.scope,
        'users',
        named.map((ref) => ref.id),
      )
    ).map((user) => [user.id, user]),
  );
  const ids = named.map((ref) => (isUuid(ref.id) ? ref.id.toLowerCase() : ref.id));
  const attached = new Set((await attachmentsOf(license, ids)).map((item) => item.ownerId as string));
  const users: StoredItem<UserRecord>[] = [];
  for (const [index, id] of ids.entries()) {
    const user = found.get(id);
    if (!user || !(await namable(actor, user))) throw userNotFound(named[index]?.id ?? id, index);
    if (user.id === license.ownerId) throw ruleBroken('USER_CONFLICT', 'already exists (user is attached through owner)', pointer(index));
    if (attached.has(user.id) || ids.indexOf(id) !== index) throw ruleBroken('USER_TAKEN', 'already exists', pointer(index));
    users.push(user);
  }
  return users;
}

/** The attachments to `license` of the users `ids` names (each read once, however often named). */
const attachmentsOf = (license: StoredItem<LicenseRecord>, ids: readonly string[]) =>
  getItems([...new Set(ids.filter(isUuid))].map((id) => licenseUserKey(license.accountId, license.id, id)));

const userNotFound = (id: string, index: number) => ruleBroken('USER_NOT_FOUND', `user '${id}' was not found`, pointer(index));

/** Deletes attachments an attach made before one of its later transactions failed (those a detach took meanwhile are gone already). */
async function undo(license: StoredItem<LicenseRecord>, attachments: readonly LicenseUserRecord[]): Promise<void> {
  if (attachments.length === 0) return;
  const items = await getItems(attachments.map((attachment) => recordKey(attachment.accountId, 'license-users', attachment.id)));
  await detachItems(items.flatMap((item) => itemOfType('license-users', item) ?? []));
  // A machine given meanwhile to one of them is no longer its (as after any detach).
  await disown(license, new Set(attachments.map((attachment) => attachment.ownerId)));
}

/**
 * DELETE /licenses/<id>/users: detaches the users named, with the event `license.users.detached`.
 * 403 for the owner (attached through ownership, as Keygen answers); 422 USER_NOT_FOUND for a user
 * not attached.
 */
export async function detachUsers(actor: Actor, idOrKey: string, named: readonly UserRef[]): Promise<void> {
  const license = await licenseFor(actor, idOrKey, 'detach');
  const ids = named.map((ref) => (isUuid(ref.id) ? ref.id.toLowerCase() : ref.id));
  if (license.ownerId !== null && ids.includes(license.ownerId))
    throw refused(`cannot detach user '${license.ownerId}' (user is attached through owner)`);
  const items = await attachmentsOf(license, ids);
  const byUser = new Map(items.flatMap((item) => (itemOfType('license-users', item) ? [[item.ownerId as string, item]] : [])));
  for (const [index, id] of ids.entries()) {
    if (!byUser.has(id))
      throw ruleBroken('USER_NOT_FOUND', `cannot detach user '${named[index]?.id ?? id}' (user is not attached)`, pointer(index));
  }
  const attachments = [...byUser.values()] as StoredItem<LicenseUserRecord>[];
  const detached = new Set(byUser.keys());
  // Disowned first, while still attached: a detach cut short is asked again, and finishes.
  await disown(license, detached);
  await detachItems(attachments, (tx) =>
    emitEvent(
      tx,
      originOf(license, actor.scope),
      'license.users.detached',
      attachments.map((item) => licenseUserDocument(toRecord('license-users', item))),
    ),
  );
  // Once more, for a machine given to one of them between that and the detach (it now requires the attachment).
  await disown(license, detached, true);
}

/**
 * The machines of `license` that users detached from it owned lose their owner, with their
 * components and processes (which carry their machine's), as Keygen nullifies them: a user no
 * longer of the license reaches none of it. Handed over as an owner change is (shared/licensing/hand-over.ts),
 * while the license exists: a change of its owner meanwhile moves only what its old owner owned.
 */
const disown = (license: StoredItem<LicenseRecord>, detached: ReadonlySet<string>, once = false) =>
  handOver(license, {
    once,
    types: ['machines', 'components', 'processes'],
    holds: {},
    stale: (record) => typeof record.ownerId === 'string' && detached.has(record.ownerId),
    write: (tx, record, changed) => moveOwner(tx, record, record.ownerId as string, null, changed),
  });

/**
 * Deletes `attachments`, a chunk per transaction, each on condition that it is still there (one
 * gone meanwhile is left out, and its chunk written again): the count they leave is theirs alone.
 * `announce` writes into the last transaction (the event of a detach), sized to leave it room.
 */
export async function detachItems(
  attachments: readonly PlacedItem[],
  announce: (tx: Transaction) => Promise<unknown> = async () => {},
): Promise<void> {
  for (const { chunk: first, last } of await chunked(attachments, DETACH_COST, announce)) {
    let chunk = first;
    for (let attempt = 1; ; attempt++) {
      const gone = conflict('an attachment went while it was being detached');
      const tx = new Transaction();
      for (const attachment of chunk) tx.delete(attachment, gone);
      if (last) await announce(tx);
      try {
        await tx.commit();
        break;
      } catch (error) {
        if (error !== gone || attempt >= ATTEMPTS) throw error;
        await backoff(attempt);
        chunk = await readAgain(chunk);
      }
    }
  }
}
