/**
 * Components (docs/rules.md §23): hardware fingerprints of a machine. Who may add, read, change
 * and remove them (docs/authorization.md) is shared/resources/components/policy.ts.
 */

import type { Actor } from '../../auth/actor.ts';
import { authorize, authorizeAction, restriction } from '../../auth/authorize.ts';
import { ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { machineNamed } from '../../licensing/aliases.ts';
import {
  createHolder,
  type FingerprintHold,
  fingerprintHold,
  fingerprintRule,
  levelOf,
  type Scopes,
  scopeEnvironmentsOf,
} from '../../licensing/fingerprints.ts';
import { relatedItem, requireAncestry } from '../../licensing/graph.ts';
import { type Filter, type FilterValues, filteredList } from '../../licensing/lists.ts';
import { parentsOf } from '../../licensing/slots.ts';
import { RecordNotFound } from '../../store/errors.ts';
import type { Page, PageRequest } from '../../store/paging.ts';
import { getItem, getNamedRecordItems, type Item, itemOfType, recordKeyOf, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { updateAndAnnounce } from '../changes.ts';
import { type MachineRecord, underMachine } from '../machines/entity.ts';
import type { UniquenessStrategy } from '../policies/entity.ts';
import { attributePointer, type Metadata, maxLength, metadataRule, newRecord, now } from '../rules.ts';
import { inheritedFrom, inheritedOwnersChanged, requireInheritedOwner, unlessOwnerGone } from '../users/owners.ts';
import { componentDocument } from './document.ts';
import { COMPONENT_FINGERPRINTS, type ComponentRecord } from './entity.ts';

export interface NewComponent {
  fingerprint: string;
  name: string;
  metadata?: Metadata;
  machineId: string;
}

export interface ComponentChanges {
  name?: string;
  metadata?: Metadata;
}

export async function createComponent(actor: Actor, input: NewComponent): Promise<ComponentRecord> {
  await authorizeAction(actor, 'components', 'create');
  componentRules(input);
  return unlessOwnerGone(() => addToMachine(actor, input));
}

/** The create itself, from the machine as it is now. */
async function addToMachine(actor: Actor, input: NewComponent): Promise<ComponentRecord> {
  const machineItem = await relatedItem(actor, 'machines', input.machineId, 'machine');
  // What the component is judged in (the machine's license, policy and product), with the
  // machine's owner, as they are now.
  const { owner, ...scopes } = await getNamedRecordItems(machineItem.accountId, {
    license: ['licenses', machineItem.licenseId],
    policy: ['policies', machineItem.policyId],
    product: ['products', machineItem.productId],
    owner: ['users', machineItem.ownerId],
  });
  // An owner deleted is none, even before its deletion has cleared the machine's link (shared/resources/users/owners.ts).
  const machine = { ...toRecord('machines', machineItem), ...(owner ? {} : { ownerId: null }) };
  // Asked again now that the license is known: a user may not act on a protected one.
  await authorizeAction(actor, 'components', 'create', { license: scopes.license });
  const component = newComponent(actor, machine, input);
  const tx = new Transaction();
  await addComponent(tx, actor, component, componentHold(component, machine, scopes, attributePointer('fingerprint')));
  // The machine and all above it must still exist (never a component under a removal), and its owner.
  const machineGone = ruleBroken('MACHINE_NOT_FOUND', 'machine was deleted', '/data/relationships/machine');
  // With the owners the component inherits: changed meanwhile (licenses/owner.ts), the machine is read again.
  tx.requireState({ PK: machineItem.PK, SK: machineItem.SK }, inheritedFrom(machineItem), inheritedOwnersChanged());
  requireAncestry(tx, component, ['licenses', 'policies', 'products'], machineGone);
  requireInheritedOwner(tx, component.accountId, component.ownerId);
  await tx.commit();
  return component;
}

/** The rules of a component's attributes. */
export function componentRules(input: Omit<NewComponent, 'machineId'>): void {
  fingerprintRule(input.fingerprint);
  maxLength('name', input.name, 255);
  metadataRule(input.metadata);
}

/** A new component of `machine`, born in the request's environment; license, policy, product and owners follow from the machine. */
export function newComponent(actor: Actor, machine: MachineRecord, input: Omit<NewComponent, 'machineId'>): ComponentRecord {
  return {
    ...newRecord('components', actor.scope),
    ...underMachine(machine),
    fingerprint: input.fingerprint,
    name: input.name,
    metadata: input.metadata ?? {},
  };
}

/** How `component` holds its fingerprint, judged in the scope the policy's strategy names now (else FINGERPRINT_TAKEN at `pointer`). */
export function componentHold(
  component: ComponentRecord,
  machine: Pick<MachineRecord, 'fingerprint'>,
  scopes: Scopes,
  pointer: string,
): FingerprintHold {
  const strategy = (scopes.policy?.componentUniquenessStrategy as UniquenessStrategy | undefined) ?? 'UNIQUE_PER_MACHINE';
  const taken = ruleBroken('FINGERPRINT_TAKEN', `fingerprint has already been taken for this ${levelOf(strategy)} (${strategy})`, pointer);
  const placement = { ...component, scopeEnvironments: scopeEnvironmentsOf(scopes), machineFingerprint: machine.fingerprint };
  return fingerprintHold(COMPONENT_FINGERPRINTS, placement, component.fingerprint, strategy, taken);
}

/** Writes `component` into `tx` with its fingerprint's hold and its event. Returns the stored item. */
export async function addComponent(tx: Transaction, actor: Actor, component: ComponentRecord, hold: FingerprintHold): Promise<Item> {
  const item = createHolder(
    tx,
    component,
    parentsOf('components', {
      machine: component.machineId,
      license: component.licenseId,
      product: component.productId,
      owner: component.ownerId,
    }),
    hold,
  );
  await emitEvent(tx, originOf(component, actor.scope), 'component.created', componentDocument(component));
  return item;
}

export async function retrieveComponent(actor: Actor, id: string): Promise<ComponentRecord> {
  return toRecord('components', await authorize(actor, 'components', id, 'read'));
}

export async function updateComponent(actor: Actor, id: string, attributes: ComponentChanges): Promise<ComponentRecord> {
  const item = await authorize(actor, 'components', id, 'update');
  maxLength('name', attributes.name, 255);
  metadataRule(attributes.metadata);
  return updateAndAnnounce('components', item, { ...attributes, updated: now() }, 'component.updated', componentDocument, actor.scope);
}

/**
 * Permanent; the fingerprint's marker goes with the component, and it leaves the counts it is in
 * as read: a component whose license moved to another policy meanwhile (its counts with it) is
 * read again.
 */
export async function deleteComponent(actor: Actor, id: string): Promise<void> {
  let item = await authorize(actor, 'components', id, 'delete');
  for (let attempt = 1; ; attempt++) {
    const tx = new Transaction();
    const gone = new RecordNotFound('components', id);
    tx.delete(item, gone, { policyId: item.policyId });
    const removed = toRecord('components', item);
    await emitEvent(tx, originOf(removed, actor.scope), 'component.deleted', componentDocument(removed));
    try {
      await tx.commit();
      return;
    } catch (error) {
      const again = error === gone && attempt < 3 ? itemOfType('components', await getItem(recordKeyOf(item))) : undefined;
      if (!again) throw error;
      item = again;
    }
  }
}

/** Filters in order of selectivity: a machine's components, a license's, a user's, a product's. */
const FILTERS: readonly Filter<'components'>[] = [
  { params: ['machine'], parent: 'machine' },
  { params: ['license'], parent: 'license' },
  { params: ['owner', 'user'], parent: 'owner' },
  { params: ['product'], parent: 'product' },
];

export async function listComponents(
  actor: Actor,
  filters: FilterValues,
  page: PageRequest,
  forced: Record<string, string> = {},
): Promise<Page<ComponentRecord>> {
  await authorizeAction(actor, 'components', 'list');
  return filteredList(actor.scope, 'components', FILTERS, filters, [restriction(actor, 'components'), forced], page);
}

/** GET /machines/<id>/components: the components of a machine the bearer may see, named by id or fingerprint. */
export async function listMachineComponents(actor: Actor, machineId: string, filters: FilterValues, page: PageRequest) {
  const machine = await authorize(actor, 'machines', await machineNamed(actor, machineId), 'read');
  await authorizeAction(actor, 'components', 'list');
  // Whoever sees the machine sees all its components.
  return filteredList(actor.scope, 'components', FILTERS, filters, [{ machineId: machine.id }], page);
}
