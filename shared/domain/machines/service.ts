/**
 * Machines, activated on a license (who may do what: shared/auth/policies/licensing.ts). The
 * policy's maxMachines bounds a license's machines.
 */
import { emitEvent, originOf } from '../../events/emit.ts';
import { updateAndAnnounce } from '../changes.ts';
import { machineDocument } from './document.ts';
import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { authorize, authorizeAction, restriction } from '../../auth/authorize.ts';
import type { Actor } from '../../auth/actor.ts';
import { nonBlank, parseBody, relationship, resourceDocument, updateDocument } from '../../http/body.ts';
import { ruleBroken } from '../../errors.ts';
import type { Query } from '../../http/query.ts';
import { recordKey } from '../../store/keys.ts';
import type { Page, PageRequest } from '../../store/paging.ts';
import { getItem, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { attributePointer, maxLength, metadataRule, metadataSchema, now } from '../rules.ts';
import { retrieveUser } from '../users/service.ts';
import { relatedItem, relationshipId, removeWithDescendants } from '../licensing/graph.ts';
import { SLOTS } from '../licensing/slots.ts';
import { filteredList, type Filter } from '../licensing/lists.ts';
import type { LicenseRecord } from '../licenses/license.ts';
import { MACHINE_FINGERPRINT_MARKER, machineFingerprintValue, type MachineRecord } from './machine.ts';
import { takeSeat } from './seats.ts';

const metadata = metadataSchema();
export const FINGERPRINT_MAX_BYTES = 4096;

const mutable = {
  name: z.nullish(z.string()),
  hostname: z.nullish(z.string()),
  platform: z.nullish(z.string()),
  metadata: z.optional(metadata),
};

const createBody = resourceDocument(
  'machines',
  { fingerprint: nonBlank(), ...mutable },
  { license: relationship('licenses'), owner: z.optional(relationship('users')) },
);
const updateBody = updateDocument('machines', mutable);

function rules(input: NonNullable<z.infer<typeof updateBody>['data']['attributes']>) {
  for (const name of ['name', 'hostname', 'platform'] as const) maxLength(name, input[name], 255);
  metadataRule(input.metadata);
}

export function fingerprintRule(fingerprint: string) {
  if (Buffer.byteLength(fingerprint) > FINGERPRINT_MAX_BYTES) {
    throw ruleBroken('FINGERPRINT_TOO_LONG', `fingerprint is too long (maximum is ${FINGERPRINT_MAX_BYTES} bytes)`, attributePointer('fingerprint'));
  }
}

export async function createMachine(ctx: Actor): Promise<MachineRecord> {
  await authorizeAction(ctx, 'machines', 'create');
  const { data } = parseBody(ctx.body, createBody);
  fingerprintRule(data.attributes.fingerprint);
  rules(data.attributes);
  const licenseItem = await relatedItem(ctx, 'licenses', relationshipId(data, 'license')!, 'license');
  // Asked again now that the license is known: a user may not act on a protected one.
  await authorizeAction(ctx, 'machines', 'create', { license: licenseItem });
  const license = toRecord<LicenseRecord>(licenseItem);
  const ownerId = relationshipId(data, 'owner');
  const owner = ownerId ? await relatedItem(ctx, 'users', ownerId, 'owner') : undefined;
  const policy = await getItem(recordKey(ctx.scope.accountId, 'policies', license.policyId));
  const timestamp = now();
  const machine: MachineRecord = {
    type: 'machines',
    id: randomUUID(),
    accountId: ctx.scope.accountId,
    environmentId: ctx.scope.environmentId,
    created: timestamp,
    updated: timestamp,
    licenseId: license.id,
    licenseEnvironmentId: license.environmentId ?? null,
    policyId: license.policyId,
    productId: license.productId,
    ownerId: (owner?.id as string | undefined) ?? license.ownerId ?? null,
    licenseOwnerId: license.ownerId ?? null,
    fingerprint: data.attributes.fingerprint,
    name: data.attributes.name ?? null,
    hostname: data.attributes.hostname ?? null,
    platform: data.attributes.platform ?? null,
    metadata: data.attributes.metadata ?? {},
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
  // maxMachines counts the license's machines in every environment together (seats.ts).
  const max = policy?.maxMachines as number | null | undefined;
  takeSeat(tx, machine, max, ruleBroken('MACHINE_LIMIT_EXCEEDED', `the license has reached its machine limit (${max})`, '/data/relationships/license'));
  tx.requireExists({ PK: licenseItem.PK, SK: licenseItem.SK }, ruleBroken('LICENSE_NOT_FOUND', 'license was deleted', '/data/relationships/license'));
  await emitEvent(tx, originOf(machine, ctx.scope), 'machine.created', machineDocument(machine));
  await tx.commit();
  return machine;
}

export async function retrieveMachine(ctx: Actor, id: string): Promise<MachineRecord> {
  return toRecord<MachineRecord>(await authorize(ctx, 'machines', id, 'read'));
}

export async function updateMachine(ctx: Actor, id: string): Promise<MachineRecord> {
  const item = await authorize(ctx, 'machines', id, 'update');
  const { attributes = {} } = parseBody(ctx.body, updateBody, id).data;
  rules(attributes);
  return updateAndAnnounce<MachineRecord>(item, { ...attributes, updated: now() }, 'machine.updated', machineDocument, ctx.scope);
}

export async function deleteMachine(ctx: Actor, id: string): Promise<void> {
  const item = await authorize(ctx, 'machines', id, 'delete');
  const removed = toRecord<MachineRecord>(item);
  await removeWithDescendants(item, (tx) => emitEvent(tx, originOf(removed, ctx.scope), 'machine.deleted', machineDocument(removed)));
}

/** Filters in order of selectivity: a license's machines, a user's, a product's. */
const FILTERS: readonly Filter[] = [
  { params: ['license'], attribute: 'licenseId', parent: 'licenses', slot: SLOTS.machines.license },
  { params: ['owner', 'user'], attribute: 'ownerId', parent: 'users', slot: SLOTS.machines.owner },
  { params: ['product'], attribute: 'productId', parent: 'products', slot: SLOTS.machines.product },
];

export async function listMachines(ctx: Actor, page: PageRequest, forced: Record<string, string> = {}, query: Query = ctx.query): Promise<Page<MachineRecord>> {
  await authorizeAction(ctx, 'machines', 'list');
  return filteredList<MachineRecord>(ctx.scope, 'machines', FILTERS, query, [restriction(ctx, 'machines'), forced], page);
}

/** GET /licenses/<id>/machines: whoever sees a license sees all its machines, whoever owns each one. */
export async function listLicenseMachines(ctx: Actor, licenseId: string, page: PageRequest) {
  const license = await authorize(ctx, 'licenses', licenseId, 'read');
  await authorizeAction(ctx, 'machines', 'list');
  return filteredList<MachineRecord>(ctx.scope, 'machines', FILTERS, ctx.query, [{ licenseId: license.id as string }], page);
}

/** GET /users/<id>/machines. */
export async function listUserMachines(ctx: Actor, userId: string, page: PageRequest) {
  const user = await retrieveUser(ctx, userId);
  return listMachines(ctx, page, { ownerId: user.id });
}

/** The machine a record belongs to, seen by the rules of machines. */
export const relatedMachine = (ctx: Actor, record: { machineId: string }) => retrieveMachine(ctx, record.machineId);
