/**
 * Machines, activated on a license (who may do what: shared/auth/policies/licensing.ts). The
 * policy's maxMachines bounds a license's machines.
 */

import { randomUUID } from 'node:crypto';
import type { Actor } from '../../auth/actor.ts';
import { authorize, authorizeAction, restriction } from '../../auth/authorize.ts';
import { ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { recordKey } from '../../store/keys.ts';
import type { Page, PageRequest } from '../../store/paging.ts';
import { getItem, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { updateAndAnnounce } from '../changes.ts';
import { holdLicenseForActivation } from '../licenses/expiry.ts';
import type { LicenseRecord } from '../licenses/license.ts';
import { licenseNamed, machineNamed, requireNamedId } from '../licensing/aliases.ts';
import { relatedItem, removeWithDescendants } from '../licensing/graph.ts';
import { type Filter, type FilterValues, filteredList } from '../licensing/lists.ts';
import { SLOTS } from '../licensing/slots.ts';
import { expirationOf } from '../policies/policy.ts';
import { attributePointer, type Metadata, maxLength, metadataRule, now } from '../rules.ts';
import { retrieveUser } from '../users/service.ts';
import { machineDocument } from './document.ts';
import { listByFingerprint } from './fingerprints.ts';
import { type Hardware, hardwareOf, hardwareRules } from './hardware.ts';
import { MACHINE_FINGERPRINT_MARKER, type MachineRecord, machineFingerprintValue } from './machine.ts';
import { takeSeat } from './seats.ts';

export const FINGERPRINT_MAX_BYTES = 4096;

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
}

function rules(attributes: MachineChanges) {
  for (const name of ['name', 'hostname', 'platform'] as const) maxLength(name, attributes[name], 255);
  metadataRule(attributes.metadata);
  hardwareRules(attributes);
}

export function fingerprintRule(fingerprint: string) {
  if (Buffer.byteLength(fingerprint) > FINGERPRINT_MAX_BYTES) {
    throw ruleBroken(
      'FINGERPRINT_TOO_LONG',
      `fingerprint is too long (maximum is ${FINGERPRINT_MAX_BYTES} bytes)`,
      attributePointer('fingerprint'),
    );
  }
}

export async function createMachine(actor: Actor, input: NewMachine): Promise<MachineRecord> {
  await authorizeAction(actor, 'machines', 'create');
  fingerprintRule(input.fingerprint);
  rules(input);
  const licenseItem = await relatedItem(actor, 'licenses', input.licenseId, 'license');
  // Asked again now that the license is known: a user may not act on a protected one.
  await authorizeAction(actor, 'machines', 'create', { license: licenseItem });
  const license = toRecord<LicenseRecord>(licenseItem);
  const owner = input.ownerId !== undefined ? await relatedItem(actor, 'users', input.ownerId, 'owner') : undefined;
  const policy = await getItem(recordKey(actor.scope.accountId, 'policies', license.policyId));
  const timestamp = now();
  const machine: MachineRecord = {
    type: 'machines',
    id: randomUUID(),
    accountId: actor.scope.accountId,
    environmentId: actor.scope.environmentId,
    created: timestamp,
    updated: timestamp,
    licenseId: license.id,
    licenseEnvironmentId: license.environmentId ?? null,
    policyId: license.policyId,
    productId: license.productId,
    ownerId: (owner?.id as string | undefined) ?? license.ownerId ?? null,
    licenseOwnerId: license.ownerId ?? null,
    fingerprint: input.fingerprint,
    name: input.name ?? null,
    hostname: input.hostname ?? null,
    platform: input.platform ?? null,
    ...hardwareOf(input),
    metadata: input.metadata ?? {},
  };
  const tx = new Transaction();
  tx.create(machine, {
    parents: [
      { type: 'licenses', id: license.id },
      { type: 'products', id: license.productId },
      machine.ownerId ? { type: 'users', id: machine.ownerId } : undefined,
    ],
    unique: [
      {
        kind: MACHINE_FINGERPRINT_MARKER,
        value: machineFingerprintValue(license.id, machine.fingerprint),
        taken: ruleBroken('FINGERPRINT_TAKEN', 'fingerprint has already been taken for this license', attributePointer('fingerprint')),
      },
    ],
  });
  // Found by its fingerprint alone as well, whatever its license (fingerprints.ts).
  listByFingerprint(tx, machine);
  // maxMachines counts the license's machines in every environment together (seats.ts).
  const max = policy?.maxMachines as number | null | undefined;
  takeSeat(
    tx,
    machine,
    max,
    ruleBroken('MACHINE_LIMIT_EXCEEDED', `the license has reached its machine limit (${max})`, '/data/relationships/license'),
  );
  // The license must still exist; under FROM_FIRST_ACTIVATION its first machine also starts its expiry.
  holdLicenseForActivation(
    tx,
    licenseItem,
    expirationOf(policy),
    ruleBroken('LICENSE_NOT_FOUND', 'license was deleted', '/data/relationships/license'),
  );
  await emitEvent(tx, originOf(machine, actor.scope), 'machine.created', machineDocument(machine));
  await tx.commit();
  return machine;
}

/** `id`: the machine's id or its fingerprint (docs/rules.md §12), as for its update and delete. */
export async function retrieveMachine(actor: Actor, id: string): Promise<MachineRecord> {
  return toRecord<MachineRecord>(await authorize(actor, 'machines', await machineNamed(actor, id), 'read'));
}

/** `namedId`: the update's `data.id`, if sent; the path may name the machine by its fingerprint. */
export async function updateMachine(actor: Actor, id: string, changes: MachineChanges, namedId?: string): Promise<MachineRecord> {
  const item = await authorize(actor, 'machines', await machineNamed(actor, id), 'update');
  requireNamedId(item, namedId);
  rules(changes);
  return updateAndAnnounce<MachineRecord>(item, { ...changes, updated: now() }, 'machine.updated', machineDocument, actor.scope);
}

export async function deleteMachine(actor: Actor, id: string): Promise<void> {
  const item = await authorize(actor, 'machines', await machineNamed(actor, id), 'delete');
  const removed = toRecord<MachineRecord>(item);
  await removeWithDescendants(item, (tx) => emitEvent(tx, originOf(removed, actor.scope), 'machine.deleted', machineDocument(removed)));
}

/** Filters in order of selectivity: a license's machines, a user's, a product's. */
const FILTERS: readonly Filter[] = [
  { params: ['license'], attribute: 'licenseId', parent: 'licenses', slot: SLOTS.machines.license },
  { params: ['owner', 'user'], attribute: 'ownerId', parent: 'users', slot: SLOTS.machines.owner },
  { params: ['product'], attribute: 'productId', parent: 'products', slot: SLOTS.machines.product },
];

export async function listMachines(
  actor: Actor,
  filters: FilterValues,
  page: PageRequest,
  forced: Record<string, string> = {},
): Promise<Page<MachineRecord>> {
  await authorizeAction(actor, 'machines', 'list');
  return filteredList<MachineRecord>(actor.scope, 'machines', FILTERS, filters, [restriction(actor, 'machines'), forced], page);
}

/** GET /licenses/<id>/machines: whoever sees a license sees all its machines, whoever owns each one. */
export async function listLicenseMachines(actor: Actor, licenseId: string, filters: FilterValues, page: PageRequest) {
  const license = await authorize(actor, 'licenses', await licenseNamed(actor, licenseId), 'read');
  await authorizeAction(actor, 'machines', 'list');
  return filteredList<MachineRecord>(actor.scope, 'machines', FILTERS, filters, [{ licenseId: license.id as string }], page);
}

/** GET /users/<id>/machines: the machines a user owns, under the same filters as every list of machines. */
export async function listUserMachines(actor: Actor, userId: string, filters: FilterValues, page: PageRequest) {
  const user = await retrieveUser(actor, userId);
  return listMachines(actor, filters, page, { ownerId: user.id });
}

/** The machine a record belongs to, seen by the rules of machines. */
export const relatedMachine = (actor: Actor, record: { machineId: string }) => retrieveMachine(actor, record.machineId);
