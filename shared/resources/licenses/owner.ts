/**
 * Changing a license's owner (docs/rules.md §18.10): `PUT /licenses/<id>/owner`, and Keygen's
 * older `PUT /licenses/<id>/user`, as Keygen changes it. The license moves between its owners'
 * collections in one transaction with its key's marker and its event; then what hangs on it (its
 * machines, their components and processes) is handed over: each carries its license's owner
 * (`licenseOwnerId`, what lets that user reach it), and what is owned through the license (an
 * `ownerId` equal to its `licenseOwnerId`, as a machine takes it by default) passes to the new
 * owner with it.
 *
 * The hand-over runs in the request, a chunk of records per transaction, each transaction on
 * condition that the license still has the new owner, who still exists (a later change hands over
 * in its turn), and that each record is as read (one changed meanwhile is read again). It goes
 * twice, the second time a moment later, for a record the index had not shown yet. A record
 * created meanwhile cannot miss it: a machine's create requires its license's owner as read, a
 * component's or a process's its machine's (`inheritedOwnersChanged`, shared/resources/users/
 * owners.ts), and reads again when they changed. A request cut short leaves some records with the
 * old owner: any owner change asked after it (the same one too) hands them over, since what a
 * record carries, not what the request read, tells what to move.
 */
import type { Actor } from '../../auth/actor.ts';
import { authorize, present, relatable } from '../../auth/authorize.ts';
import { conflict, ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { licenseNamed } from '../../licensing/aliases.ts';
import { childEnvironments, childPartition } from '../../licensing/graph.ts';
import { parentIn } from '../../licensing/slots.ts';
import { collectionPage } from '../../store/cascade.ts';
import type { AccessPattern } from '../../store/data-model.ts';
import { recordKey } from '../../store/keys.ts';
import { backoff, getVisibleItem, isUuid, type PlacedItem, readAgain, type StoredItem, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { licenseUserKey } from '../license-users/entity.ts';
import { policyOf } from '../policies/beside.ts';
import { now } from '../rules.ts';
import { moveOwner } from '../users/owners.ts';
import { licenseDocument } from './document.ts';
import type { LicenseRecord } from './entity.ts';
import type { LicenseAnswer } from './service.ts';

/** What hangs on a license and carries its owner. */
const HELD = ['machines', 'components', 'processes'] as const;
/** Records read at once, and handed over per transaction. */
const PAGE = 100;
const CHUNK = 25;
const ATTEMPTS = 5;

const ownerNotFound = (id: string) => ruleBroken('OWNER_NOT_FOUND', `owner '${id}' was not found`, '/data');
const attachedAlready = () => ruleBroken('OWNER_INVALID', 'already exists (user is attached through users)', '/data/relationships/owner');

/**
 * Gives the license `ownerId` as its owner (null: none). 422 OWNER_NOT_FOUND when the request may
 * not name that user (or it was deleted meanwhile), OWNER_INVALID when the user is attached to the
 * license (Keygen's rule); 409 when the license's owner changed meanwhile.
 */
export async function changeLicenseOwner(actor: Actor, idOrKey: string, ownerId: string | null): Promise<LicenseAnswer> {
  const item = await authorize(actor, 'licenses', await licenseNamed(actor, idOrKey), 'owner.update');
  const owner = ownerId === null ? undefined : isUuid(ownerId) ? await getVisibleItem(actor.scope, 'users', ownerId) : undefined;
  if (ownerId !== null && (!owner || !(await relatable(actor, 'users', owner)))) throw ownerNotFound(ownerId);
  const from = item.ownerId ?? null;
  const to = owner?.id ?? null;
  const policy = await policyOf(item);
  const tx = new Transaction();
  const changed = conflict("The license's owner changed while this request was made; retry it");
  const written = moveOwner(tx, item, from, to, changed, { updated: now() });
  if (owner) tx.requireExists({ PK: owner.PK, SK: owner.SK }, ownerNotFound(owner.id));
  // A user attached is a user of the license already (docs/rules.md §18.11): detached first, it may own it.
  if (owner) tx.requireState(licenseUserKey(item.accountId, item.id, owner.id), { PK: undefined }, attachedAlready());
  const license = toRecord('licenses', written);
  await emitEvent(tx, originOf(license, actor.scope), 'license.owner.updated', licenseDocument(license, policy));
  await tx.commit();
  await handOver(item, to);
  return { license: present(actor, 'licenses', license), policy };
}

/** The license moved on to yet another owner, or the owner went: the later change (or the delete) takes over. */
class MovedOn extends Error {}

/** How long an index may take to show a record just written (a second pass looks again after it). */
const INDEX_LAG_MS = 1000;

/** Hands what hangs on `license` over to `to` (see the top): a pass, then another once the index has caught up. */
async function handOver(license: StoredItem<LicenseRecord>, to: string | null): Promise<void> {
  const environments = await childEnvironments(license.accountId, license.environmentId ?? null);
  try {
    await handOverPass(license, environments, to);
    await new Promise((resolve) => setTimeout(resolve, INDEX_LAG_MS));
    await handOverPass(license, environments, to);
  } catch (error) {
    if (!(error instanceof MovedOn)) throw error;
  }
}

async function handOverPass(
  license: StoredItem<LicenseRecord>,
  environments: readonly (string | null)[],
  to: string | null,
): Promise<void> {
  for (const type of HELD) {
    const collection = parentIn(type, 'license', license.id);
    for (const environmentId of environments) {
      const partition = childPartition(license, { type, slot: collection.slot }, environmentId);
      let after: Record<string, unknown> | undefined;
      do {
        const page = await collectionPage(collection.slot, partition, PAGE, after);
        for (let i = 0; i < page.items.length; i += CHUNK) await handChunk(license, page.items.slice(i, i + CHUNK), to);
        after = page.after;
      } while (after);
    }
  }
}

/** Whether a record is owned through its license: its owner is its license's owner, as a machine's is by default. */
const ownedThrough = (record: PlacedItem) => record.ownerId != null && record.ownerId === record.licenseOwnerId;

/** Whether a record still carries an owner of its license's but `to`. */
const stale = (record: PlacedItem, to: string | null) =>
  (record.licenseOwnerId ?? null) !== to || (ownedThrough(record) && record.ownerId !== to);

/** Hands one chunk over in one transaction, reading again what changed meanwhile. */
async function handChunk(license: StoredItem<LicenseRecord>, records: PlacedItem[], to: string | null): Promise<void> {
  let chunk = records.filter((record) => stale(record, to));
  for (let attempt = 1; chunk.length > 0; attempt++) {
    const changed = conflict('a record of the license changed while its owner was handed over');
    const tx = new Transaction();
    const movedOn = new MovedOn();
    tx.requireState({ PK: license.PK, SK: license.SK }, { PK: license.PK, ownerId: to }, movedOn);
    if (to !== null) tx.requireExists(recordKey(license.accountId, 'users', to), movedOn);
    for (const record of chunk) {
      const carried = { licenseOwnerId: to };
      const from = (record.ownerId as string | null | undefined) ?? null;
      if (ownedThrough(record)) moveOwner(tx, record, from, to, changed, carried);
      else tx.update(record, carried, { missing: changed, unchanged: { ownerId: from }, conflict: changed });
    }
    try {
      await tx.commit();
      return;
    } catch (error) {
      if (error !== changed || attempt >= ATTEMPTS) throw error;
      await backoff(attempt);
      chunk = (await readAgain(chunk)).filter((record) => stale(record, to));
    }
  }
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 65,
    name: "Change a license's owner, and hand over what hangs on it",
    operation:
      "TransactWriteItems: UpdateItem of the license `SET ownerId, updated` and its owner collection's `GSI4PK`, `GSI4SK` (REMOVE for none) if its `ownerId` is the one read, `ADD n` of the two owner counters (−1, +1), UpdateItem of its key's marker `SET ownerId` if `ref = :license`, ConditionCheck of the new owner, the event. Then per collection under the license (machines, components, processes; in its environment, or for a global one also every SHARED one), Query 100 at a time and TransactWriteItems of 25: UpdateItem `SET licenseOwnerId` (and for a record the old owner owned, `ownerId` with its owner collection and counters) if `ownerId` is as read, with a ConditionCheck that the license's `ownerId` is the new one. A machine's create holds its license's `ownerId` as read (41), a component's or a process's its machine's `ownerId` and `licenseOwnerId`",
    index: 'table; GSI2, GSI3',
    key: '`PK = A#<acct>#LICENSE#<id>`; `GSI2PK = A#<acct>#E#<env>#LICENSE#<id>#MACHINE`, `GSI3PK = …#LICENSE#<id>#COMPONENT` (and `…#PROCESS`)',
    usedBy: 'licenses.changeOwner, licenses.changeUser',
    tests: ['http/license-owner'],
  },
];
