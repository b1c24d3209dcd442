/**
 * Components (docs/rules.md §7): hardware fingerprints of a machine. Who may add, read, change
 * and remove them (docs/authorization.md) is shared/auth/policies/licensing.ts.
 */
import { emitEvent, originOf } from '../../events/emit.ts';
import { updateAndAnnounce } from '../changes.ts';
import { componentDocument } from './document.ts';
import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { nonBlank, parseBody, relationship, resourceDocument, updateDocument } from '../../http/body.ts';
import { unprocessable } from '../../http/errors.ts';
import type { Query } from '../../http/query.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { recordKey } from '../../store/keys.ts';
import type { Page, PageRequest } from '../../store/paging.ts';
import { getItems, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { attributePointer, maxLength, metadataRule, metadataSchema, now } from '../rules.ts';
import { authorize, authorizeAction, restriction, type BearerContext } from '../../auth/authorize.ts';
import { relatedItem, relationshipId } from '../licensing/graph.ts';
import { SLOTS } from '../licensing/slots.ts';
import { filteredList, type Filter } from '../licensing/lists.ts';
import { fingerprintRule } from '../machines/service.ts';
import type { MachineRecord } from '../machines/machine.ts';
import type { UniquenessStrategy } from '../policies/policy.ts';
import { COMPONENT_FINGERPRINT_MARKER, componentFingerprintValue, UNIQUENESS_SCOPES, type ComponentRecord } from './component.ts';

const metadata = metadataSchema();

const createBody = resourceDocument(
  'components',
  { fingerprint: nonBlank(), name: nonBlank(), metadata: z.optional(metadata) },
  { machine: relationship('machines') },
);
const updateBody = updateDocument('components', { name: z.optional(nonBlank()), metadata: z.optional(metadata) });

export async function createComponent(ctx: BearerContext): Promise<ComponentRecord> {
  await authorizeAction(ctx, 'components', 'create');
  const { data } = parseBody(ctx.body, createBody);
  fingerprintRule(data.attributes.fingerprint);
  maxLength('name', data.attributes.name, 255);
  metadataRule(data.attributes.metadata);
  const machineItem = await relatedItem(ctx, 'machines', relationshipId(data, 'machine')!, 'machine');
  const machine = toRecord<MachineRecord>(machineItem);
  const licenseKey = recordKey(ctx.scope.accountId, 'licenses', machine.licenseId);
  const found = await getItems([licenseKey, recordKey(ctx.scope.accountId, 'policies', machine.policyId)]);
  const license = found.find((item) => item.PK === licenseKey.PK);
  const policy = found.find((item) => item.PK !== licenseKey.PK);
  // Asked again now that the license is known: a user may not act on a protected one.
  await authorizeAction(ctx, 'components', 'create', { license });
  const timestamp = now();
  const component: ComponentRecord = {
    type: 'components',
    id: randomUUID(),
    accountId: ctx.scope.accountId,
    environmentId: ctx.scope.environmentId,
    created: timestamp,
    updated: timestamp,
    machineId: machine.id,
    licenseId: machine.licenseId,
    policyId: machine.policyId,
    productId: machine.productId,
    ownerId: machine.ownerId ?? null,
    licenseOwnerId: machine.licenseOwnerId ?? null,
    fingerprint: data.attributes.fingerprint,
    name: data.attributes.name,
    metadata: data.attributes.metadata ?? {},
  };
  // The policy's strategy at this moment decides the marker; the component records it.
  const strategy = ((policy?.componentUniquenessStrategy as UniquenessStrategy | undefined) ?? 'UNIQUE_PER_MACHINE');
  const tx = new Transaction();
  tx.create(component, {
    parents: [
      { type: 'machines', id: component.machineId },
      { type: 'licenses', id: component.licenseId },
      { type: 'products', id: component.productId },
      component.ownerId ? { type: 'users', id: component.ownerId } : undefined,
    ],
    unique: [
      {
        kind: COMPONENT_FINGERPRINT_MARKER,
        value: componentFingerprintValue(strategy, component),
        taken: unprocessable(
          'FINGERPRINT_TAKEN',
          `fingerprint has already been taken for this ${UNIQUENESS_SCOPES[strategy].label} (${strategy})`,
          attributePointer('fingerprint'),
        ),
      },
    ],
  });
  tx.requireExists({ PK: machineItem.PK, SK: machineItem.SK }, unprocessable('MACHINE_NOT_FOUND', 'machine was deleted', '/data/relationships/machine'));
  await emitEvent(tx, originOf(component, ctx.scope), 'component.created', componentDocument(component));
  await tx.commit();
  return component;
}

export async function retrieveComponent(ctx: BearerContext, id: string): Promise<ComponentRecord> {
  return toRecord<ComponentRecord>(await authorize(ctx, 'components', id, 'read'));
}

export async function updateComponent(ctx: BearerContext, id: string): Promise<ComponentRecord> {
  const item = await authorize(ctx, 'components', id, 'update');
  const { attributes = {} } = parseBody(ctx.body, updateBody, id).data;
  maxLength('name', attributes.name, 255);
  metadataRule(attributes.metadata);
  return updateAndAnnounce<ComponentRecord>(item, { ...attributes, updated: now() }, 'component.updated', componentDocument, ctx.scope);
}

/** Permanent; the fingerprint's marker goes with the component. */
export async function deleteComponent(ctx: BearerContext, id: string): Promise<void> {
  const item = await authorize(ctx, 'components', id, 'delete');
  const tx = new Transaction();
  tx.delete(item, new RecordNotFound('components', id));
  const removed = toRecord<ComponentRecord>(item);
  await emitEvent(tx, originOf(removed, ctx.scope), 'component.deleted', componentDocument(removed));
  await tx.commit();
}

/** Filters in order of selectivity: a machine's components, a license's, a user's, a product's. */
const FILTERS: readonly Filter[] = [
  { params: ['machine'], attribute: 'machineId', parent: 'machines', slot: SLOTS.components.machine },
  { params: ['license'], attribute: 'licenseId', parent: 'licenses', slot: SLOTS.components.license },
  { params: ['owner', 'user'], attribute: 'ownerId', parent: 'users', slot: SLOTS.components.owner },
  { params: ['product'], attribute: 'productId', parent: 'products', slot: SLOTS.components.product },
];

export async function listComponents(ctx: BearerContext, page: PageRequest, forced: Record<string, string> = {}, query: Query = ctx.query): Promise<Page<ComponentRecord>> {
  await authorizeAction(ctx, 'components', 'list');
  return filteredList<ComponentRecord>(ctx.scope, 'components', FILTERS, query, [restriction(ctx, 'components'), forced], page);
}

/** GET /machines/<id>/components: the components of a machine the bearer may see. */
export async function listMachineComponents(ctx: BearerContext, machineId: string, page: PageRequest) {
  const machine = await authorize(ctx, 'machines', machineId, 'read');
  await authorizeAction(ctx, 'components', 'list');
  // Whoever sees the machine sees all its components.
  return filteredList<ComponentRecord>(ctx.scope, 'components', FILTERS, ctx.query, [{ machineId: machine.id as string }], page);
}
