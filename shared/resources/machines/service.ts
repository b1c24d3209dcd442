/**
 * Machines, activated on a license (who may do what: shared/resources/machines/policy.ts). The
 * policy's maxMachines and maxCores bound a license's machines and their cores (seats.ts,
 * docs/rules.md §21.3).
 */

import type { Actor } from '../../auth/actor.ts';
import { authorize, authorizeAction, restriction } from '../../auth/authorize.ts';
import { conflict, ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { licenseNamed, machineNamed, requireNamedId } from '../../licensing/aliases.ts';
import { createHolder, fingerprintHold, fingerprintRule, levelOf, type Scopes, scopeEnvironmentsOf } from '../../licensing/fingerprints.ts';
import { relatedItem, requireAncestry } from '../../licensing/graph.ts';
import { type Filter, type FilterValues, filteredList } from '../../licensing/lists.ts';
import { removeWithDescendants } from '../../licensing/removal.ts';
import { parentsOf } from '../../licensing/slots.ts';
import { deleteWithChildren } from '../../store/cascade.ts';
import { dueAttributes } from '../../store/due.ts';
import { RecordNotFound } from '../../store/errors.ts';
import type { Page, PageRequest } from '../../store/paging.ts';
import { getItem, getNamedRecordItems, type Item, recordKeyOf, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { componentsOfNewMachine, type NestedComponent } from '../components/nested.ts';
import { asLicenseUser } from '../license-users/membership.ts';
import { holdLicenseForActivation, withdrawStartedExpiry } from '../licenses/expiry.ts';
import { policiesBeside, policyOf } from '../policies/beside.ts';
import { expirationOf, type MachineUniquenessStrategy } from '../policies/entity.ts';
import { heartbeatOf } from '../policies/heartbeat.ts';
import { limitsOf } from '../policies/limits.ts';
import { attributePointer, type Metadata, maxLength, metadataRule, newRecord, now } from '../rules.ts';
import { inheritedOwnersChanged, requireInheritedOwner, unlessOwnerGone } from '../users/owners.ts';
import { retrieveUser } from '../users/service.ts';
import { machineDocument } from './document.ts';
import { MACHINE_FINGERPRINTS, type MachineRecord, machineMarkerFacts } from './entity.ts';
import { listByFingerprint, unlistByFingerprint } from './fingerprints.ts';
import { type Hardware, hardwareOf, hardwareRules } from './hardware.ts';
import { firstDueOf } from './heartbeat.ts';
import { changeCores, giveSeatBack, holdsSeat, SeatChanged, seatAsRead, takeSeat } from './seats.ts';

/** What an update may change (null clears it). */
export interface MachineChanges extends Hardware {
  name?: string | null;
  hostname?: string | null;
  platform?: string | null;
  metadata?: Metadata;
}

export interface NewMachine extends MachineChanges {
  fingerprint: string;
  licenseId: string;
  /** The license's owner when not given. */
  ownerId?: string;
  /** Components created with the machine (shared/resources/components/nested.ts). */
  components?: NestedComponent[];
}

function rules(attributes: MachineChanges) {
  for (const name of ['name', 'hostname', 'platform'] as const) maxLength(name, attributes[name], 255);
  metadataRule(attributes.metadata);
  hardwareRules(attributes);
}

/** A machine changed, with its policy as read for the change: what its document is judged by (document.ts). */
export interface ChangedMachine {
  machine: MachineRecord;
  policy: Item | undefined;
}

export async function createMachine(actor: Actor, input: NewMachine): Promise<ChangedMachine> {
  await authorizeAction(actor, 'machines', 'create');
  if (input.components?.length) await authorizeAction(actor, 'components', 'create');
  fingerprintRule(input.fingerprint);
  rules(input);
  return unlessOwnerGone(() => activate(actor, input));
}

/** The activation itself, from the license as it is now. */
async function activate(actor: Actor, input: NewMachine): Promise<ChangedMachine> {
  const licenseItem = await relatedItem(actor, 'licenses', input.licenseId, 'license');
  // Asked again now that the license is known: a user may not act on a protected one.
  await authorizeAction(actor, 'machines', 'create', { license: licenseItem });
  const license = toRecord('licenses', licenseItem);
  const owner = input.ownerId !== undefined ? await relatedItem(actor, 'users', input.ownerId, 'owner') : undefined;
  // A machine's owner is one of its license's users (docs/rules.md §18.11), as Keygen requires: its owner, or a user attached.
  // A machine's owner is one of its license's users (docs/rules.md §18.11), as Keygen requires.
  const stillLicenseUser = owner && (await asLicenseUser(licenseItem, owner.id));
  // As they are now: the policy or the product may be gone (the activation then fails on its
  // license), the owner too (the machine then has none).
  const {
    policy,
    product,
    owner: licenseOwner,
  } = await getNamedRecordItems(license.accountId, {
    policy: ['policies', license.policyId],
    product: ['products', license.productId],
    owner: ['users', license.ownerId],
  });
  // An owner deleted is none, even before its deletion has cleared the license's link (shared/resources/users/owners.ts).
  const licenseOwnerId = licenseOwner ? (license.ownerId ?? null) : null;
  const limits = limitsOf(policy);
  const heartbeat = heartbeatOf(policy);
  const timestamp = now();
  const machine: MachineRecord = {
    ...newRecord('machines', actor.scope, timestamp),
    licenseId: license.id,
    licenseEnvironmentId: license.environmentId ?? null,
    policyId: license.policyId,
    productId: license.productId,
    ownerId: owner?.id ?? licenseOwnerId,
    licenseOwnerId,
    fingerprint: input.fingerprint,
    name: input.name ?? null,
    hostname: input.hostname ?? null,
    platform: input.platform ?? null,
    ...hardwareOf(input),
    metadata: input.metadata ?? {},
    countedCores: input.cores ?? 0,
    // Under FROM_CREATION the heartbeat starts now, as if the machine had pinged.
    ...(heartbeat.heartbeatBasis === 'FROM_CREATION' ? { lastHeartbeat: timestamp } : {}),
  };
  const scopes = { license: licenseItem, policy, product };
  const components = await componentsOfNewMachine(actor, { ...scopes, machine, machineKey: recordKeyOf(machine) }, input.components ?? []);
  const tx = new Transaction();
  createHolder(
    tx,
    { ...machine, ...dueAttributes(firstDueOf(timestamp, heartbeat)) },
    parentsOf('machines', { license: license.id, product: license.productId, owner: machine.ownerId }),
    machineHold(machine, scopes),
  );
  // Found by its fingerprint alone as well, whatever its license (fingerprints.ts).
  listByFingerprint(tx, machine);
  // maxMachines and maxCores count the license's machines in every environment together (seats.ts).
  takeSeat(tx, machine, machine.countedCores ?? 0, limits);
  // The license must still exist, and its policy and product (never a machine under a removal);
  // under FROM_FIRST_ACTIVATION its first machine also starts its expiry (never from a SHARED
  // environment on a global license, which it only reads: expiry.ts).
  const licenseGone = ruleBroken('LICENSE_NOT_FOUND', 'license was deleted', '/data/relationships/license');
  const startedExpiry = holdLicenseForActivation(tx, actor.scope, licenseItem, expirationOf(policy), licenseGone, inheritedOwnersChanged());
  requireAncestry(tx, machine, ['policies', 'products'], licenseGone);
  // Its owner too: a deleted user's links are cleared after its delete, which would miss this one.
  if (owner)
    tx.requireExists({ PK: owner.PK, SK: owner.SK }, ruleBroken('OWNER_NOT_FOUND', 'owner was deleted', '/data/relationships/owner'));
  else requireInheritedOwner(tx, machine.accountId, machine.ownerId);
  // A user attached still is: a detach meanwhile would miss this machine (license-users/service.ts).
  stillLicenseUser?.(tx);
  await emitEvent(tx, originOf(machine, actor.scope), 'machine.created', machineDocument(machine, policy));
  await components.commitWith(tx, async (written) => {
    await withdrawActivation(actor, machine, policy, written);
    if (startedExpiry) await withdrawStartedExpiry(licenseItem, startedExpiry);
  });
  return { machine, policy };
}

/** How a new machine holds its fingerprint: judged in the scope the policy's machineUniquenessStrategy names now. */
function machineHold(machine: MachineRecord, scopes: Scopes) {
  const strategy = (scopes.policy?.machineUniquenessStrategy as MachineUniquenessStrategy | undefined) ?? 'UNIQUE_PER_LICENSE';
  const taken = ruleBroken(
    'FINGERPRINT_TAKEN',
    `fingerprint has already been taken for this ${levelOf(strategy)} (${strategy})`,
    attributePointer('fingerprint'),
  );
  const hold = fingerprintHold(
    MACHINE_FINGERPRINTS,
    { ...machine, scopeEnvironments: scopeEnvironmentsOf(scopes) },
    machine.fingerprint,
    strategy,
    taken,
  );
  return { ...hold, unique: hold.unique.map((claim) => ({ ...claim, carries: machineMarkerFacts(machine) })) };
}

/**
 * Undoes an activation whose components could not all be written: the components written and
 * the machine go as its deactivation would remove them (its seat given back, `machine.deleted`).
 */
async function withdrawActivation(actor: Actor, machine: MachineRecord, policy: Item | undefined, written: Item[]): Promise<void> {
  // Deactivated meanwhile: its components may still be left. Its cores may have changed: it gives back those it counts now.
  const there = await getItem(recordKeyOf(machine));
  await deleteWithChildren(written, async (tx) => {
    if (!there) return;
    tx.delete(there, new SeatChanged(), seatAsRead(there));
    giveSeatBack(tx, there);
    unlistByFingerprint(tx, there);
    await emitEvent(tx, originOf(machine, actor.scope), 'machine.deleted', machineDocument(machine, policy));
  });
}

/** `id`: the machine's id or its fingerprint (docs/rules.md §11.2), as for its update and delete. */
export async function retrieveMachine(actor: Actor, id: string): Promise<MachineRecord> {
  return toRecord('machines', await authorize(actor, 'machines', await machineNamed(actor, id), 'read'));
}

/** `namedId`: the update's `data.id`, if sent; the path may name the machine by its fingerprint. */
export async function updateMachine(actor: Actor, id: string, changes: MachineChanges, namedId?: string): Promise<ChangedMachine> {
  const item = await authorize(actor, 'machines', await machineNamed(actor, id), 'update');
  requireNamedId(item, namedId);
  rules(changes);
  const machine = toRecord('machines', item);
  const policy = await policyOf(machine);
  const tx = new Transaction();
  const counted = machine.countedCores ?? 0;
  const recount = changes.cores !== undefined && holdsSeat(item) && machine.countedCores !== undefined && (changes.cores ?? 0) !== counted;
  const updated = toRecord(
    'machines',
    tx.update(
      item,
      { ...changes, ...(recount ? { countedCores: changes.cores ?? 0 } : {}), updated: now() },
      {
        missing: new RecordNotFound('machines', machine.id),
        // The cores counted are those read: a concurrent change of them makes this one a 409.
        ...(recount ? { unchanged: { countedCores: counted }, conflict: conflict('the machine changed meanwhile; retry') } : {}),
      },
    ),
  );
  // The license's cores change with the machine's, within maxCores when they grow (seats.ts).
  if (recount) changeCores(tx, machine, (changes.cores ?? 0) - counted, limitsOf(policy));
  await emitEvent(tx, originOf(updated, actor.scope), 'machine.updated', machineDocument(updated, policy));
  await tx.commit();
  return { machine: updated, policy };
}

/** How often a deactivation reads its machine again when its cores changed meanwhile. */
const DEACTIVATION_ATTEMPTS = 3;

/**
 * A deactivation gives back the seat and the cores the machine counts as read; when its cores
 * change meanwhile (seats.ts), it reads the machine again and retries, and only a machine whose
 * cores keep changing is 409.
 */
export async function deleteMachine(actor: Actor, id: string): Promise<void> {
  let item = await authorize(actor, 'machines', await machineNamed(actor, id), 'delete');
  for (let attempt = 1; ; attempt++) {
    const removed = toRecord('machines', item);
    const policy = await policyOf(removed);
    try {
      return await removeWithDescendants(item, (tx) =>
        emitEvent(tx, originOf(removed, actor.scope), 'machine.deleted', machineDocument(removed, policy)),
      );
    } catch (error) {
      if (!(error instanceof SeatChanged)) throw error;
      if (attempt >= DEACTIVATION_ATTEMPTS) throw conflict('the machine changed meanwhile; retry');
      // Read again by its id (a fingerprint may name another machine by now).
      item = await authorize(actor, 'machines', removed.id, 'delete');
    }
  }
}

/** Filters in order of selectivity: a license's machines, a user's, a product's. */
const FILTERS: readonly Filter<'machines'>[] = [
  { params: ['license'], parent: 'license' },
  { params: ['owner', 'user'], parent: 'owner' },
  { params: ['product'], parent: 'product' },
];

export async function listMachines(
  actor: Actor,
  filters: FilterValues,
  page: PageRequest,
  forced: Record<string, string> = {},
): Promise<Page<MachineRecord>> {
  await authorizeAction(actor, 'machines', 'list');
  return filteredList(actor.scope, 'machines', FILTERS, filters, [restriction(actor, 'machines'), forced], page, {
    beside: policiesBeside(actor.scope.accountId),
  });
}

/** GET /licenses/<id>/machines: whoever sees a license sees all its machines, whoever owns each one. */
export async function listLicenseMachines(actor: Actor, licenseId: string, filters: FilterValues, page: PageRequest) {
  const license = await authorize(actor, 'licenses', await licenseNamed(actor, licenseId), 'read');
  await authorizeAction(actor, 'machines', 'list');
  return filteredList(actor.scope, 'machines', FILTERS, filters, [{ licenseId: license.id }], page, {
    beside: policiesBeside(actor.scope.accountId),
  });
}

/** GET /users/<id>/machines: the machines a user owns, under the same filters as every list of machines. */
export async function listUserMachines(actor: Actor, userId: string, filters: FilterValues, page: PageRequest) {
  const user = await retrieveUser(actor, userId);
  return listMachines(actor, filters, page, { ownerId: user.id });
}

/** The machine a record belongs to, seen by the rules of machines. */
export const relatedMachine = (actor: Actor, record: { machineId: string }) => retrieveMachine(actor, record.machineId);
