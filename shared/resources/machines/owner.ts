/**
 * Changing a machine's owner (docs/rules.md §21.5): `PUT /machines/<id>/owner`, as Keygen
 * changes it. The new owner is one of the machine's license's users (its owner or a user attached,
 * §18.11), or none. The machine moves between its owners' collections in one transaction with its
 * event; then its components and processes, which carry their machine's owner, follow it
 * (shared/licensing/hand-over.ts): those whose owner was the machine's.
 */
import type { Actor } from '../../auth/actor.ts';
import { authorize } from '../../auth/authorize.ts';
import { conflict, ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { machineNamed } from '../../licensing/aliases.ts';
import { handOver } from '../../licensing/hand-over.ts';
import type { AccessPattern } from '../../store/data-model.ts';
import { recordKey } from '../../store/keys.ts';
import { getRecordItem, getVisibleItem, isUuid, type StoredItem, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { asLicenseUser, namable } from '../license-users/membership.ts';
import { policyOf } from '../policies/beside.ts';
import { now } from '../rules.ts';
import { moveOwner } from '../users/owners.ts';
import { machineDocument } from './document.ts';
import type { MachineRecord } from './entity.ts';
import type { ChangedMachine } from './service.ts';

const POINTER = '/data/relationships/owner';
const ownerNotFound = (id: string) => ruleBroken('OWNER_NOT_FOUND', `owner '${id}' was not found`, POINTER);

/**
 * Gives the machine `ownerId` as its owner (null: none). 422 OWNER_NOT_FOUND for a user the request
 * may not name, OWNER_INVALID for one who is none of the license's users; 409 when the machine's
 * owner, or its license's, changed meanwhile.
 */
export async function changeMachineOwner(actor: Actor, idOrFingerprint: string, ownerId: string | null): Promise<ChangedMachine> {
  const named = await machineNamed(actor, idOrFingerprint);
  const changed = conflict("The machine's owner, or its license's, changed while this request was made; retry it");
  const license = await getRecordItem(named.accountId, 'licenses', named.licenseId);
  if (!license) throw changed;
  // The machines' policy judges who may, by the license as read here (shared/auth/policies/graph.ts).
  const item = await authorize(actor, 'machines', named, 'owner.update', { license });
  const owner = ownerId === null ? undefined : isUuid(ownerId) ? await getVisibleItem(actor.scope, 'users', ownerId) : undefined;
  if (ownerId !== null && (!owner || !(await namable(actor, owner)))) throw ownerNotFound(ownerId);
  const stillLicenseUser = owner && (await asLicenseUser(license, owner.id));
  const from = item.ownerId ?? null;
  const to = owner?.id ?? null;
  const policy = await policyOf(item);
  const tx = new Transaction();
  const written = moveOwner(tx, item, from, to, changed, { updated: now() });
  // The new owner is still one of the license's users when the change lands: its owner as read, or still attached.
  tx.requireState({ PK: license.PK, SK: license.SK }, { PK: license.PK, ownerId: license.ownerId ?? null }, changed);
  stillLicenseUser?.(tx);
  if (owner) tx.requireExists({ PK: owner.PK, SK: owner.SK }, ownerNotFound(owner.id));
  const machine = toRecord('machines', written);
  await emitEvent(tx, originOf(machine, actor.scope), 'machine.owner.updated', machineDocument(machine, policy));
  await tx.commit();
  if (from !== to) await handOverTo(item, from, to);
  return { machine, policy };
}

/** Its components and processes owned through it (their owner was the machine's) follow its owner `to`. */
const handOverTo = (machine: StoredItem<MachineRecord>, from: string | null, to: string | null) =>
  handOver(machine, {
    parent: 'machine',
    types: ['components', 'processes'],
    holds: { ownerId: to },
    requires: (tx, movedOn) => {
      if (to !== null) tx.requireExists(recordKey(machine.accountId, 'users', to), movedOn);
    },
    stale: (record) => (record.ownerId ?? null) === from,
    write: (tx, record, changed) => moveOwner(tx, record, from, to, changed),
  });

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 70,
    name: "Change a machine's owner, and hand over its components and processes",
    operation:
      "GetItem of the license and of the new owner's attachment to it, then TransactWriteItems: UpdateItem of the machine `SET ownerId, updated` and its owner collection's `GSI4PK`, `GSI4SK` if its `ownerId` is the one read, `ADD n` of the two owner counters, ConditionChecks of the license's `ownerId` as read, of the attachment and of the new owner, the event. Then per collection under the machine (components, processes), Query 100 at a time and TransactWriteItems of 25 moving those that carried the old owner, with a ConditionCheck that the machine's `ownerId` is the new one",
    index: 'table; GSI2',
    key: '`PK = A#<acct>#MACHINE#<id>`; `GSI2PK = A#<acct>#E#<env>#MACHINE#<id>#COMPONENT` (and `…#PROCESS`)',
    usedBy: 'machineRelationships.changeOwner',
    tests: ['http/license-users'],
  },
];
