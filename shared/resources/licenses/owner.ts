/**
 * Changing a license's owner (docs/rules.md §18.10): `PUT /licenses/<id>/owner`, and Keygen's
 * older `PUT /licenses/<id>/user`, as Keygen changes it. The license moves between its owners'
 * collections in one transaction with its key's marker and its event; then what hangs on it (its
 * machines, their components and processes) is handed over: each carries its license's owner
 * (`licenseOwnerId`, what lets that user reach it), and what is owned through the license (an
 * `ownerId` equal to its `licenseOwnerId`, as a machine takes it by default) passes to the new
 * owner with it.
 *
 * The hand-over runs as shared/licensing/hand-over.ts says, each transaction also on condition that the new owner
 * still exists: a machine's create requires its license's owner as read, a component's or a
 * process's its machine's owners.
 */
import type { Actor } from '../../auth/actor.ts';
import { authorize, present, relatable } from '../../auth/authorize.ts';
import { conflict, ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { licenseNamed } from '../../licensing/aliases.ts';
import { handOver } from '../../licensing/hand-over.ts';
import type { AccessPattern } from '../../store/data-model.ts';
import { recordKey } from '../../store/keys.ts';
import { getVisibleItem, isUuid, type PlacedItem, type StoredItem, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { licenseUserKey } from '../license-users/entity.ts';
import { policyOf } from '../policies/beside.ts';
import { now } from '../rules.ts';
import { moveOwner } from '../users/owners.ts';
import { licenseDocument } from './document.ts';
import type { LicenseRecord } from './entity.ts';
import type { LicenseAnswer } from './service.ts';

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
  await handOverTo(item, to);
  return { license: present(actor, 'licenses', license), policy };
}

/** Whether a record is owned through its license: its owner is its license's owner, as a machine's is by default. */
const ownedThrough = (record: PlacedItem) => record.ownerId != null && record.ownerId === record.licenseOwnerId;

/**
 * Hands what hangs on `license` over to the owner `to` (shared/licensing/hand-over.ts): each record carries its
 * license's owner, and what the old owner owned through the license passes to the new one.
 */
const handOverTo = (license: StoredItem<LicenseRecord>, to: string | null) =>
  handOver(license, {
    types: ['machines', 'components', 'processes'],
    holds: { ownerId: to },
    requires: (tx, movedOn) => {
      if (to !== null) tx.requireExists(recordKey(license.accountId, 'users', to), movedOn);
    },
    stale: (record) => (record.licenseOwnerId ?? null) !== to || (ownedThrough(record) && record.ownerId !== to),
    write: (tx, record, changed) => {
      const carried = { licenseOwnerId: to };
      const from = (record.ownerId as string | null | undefined) ?? null;
      if (ownedThrough(record)) moveOwner(tx, record, from, to, changed, carried);
      else tx.update(record, carried, { missing: changed, unchanged: { ownerId: from }, conflict: changed });
    },
  });

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
