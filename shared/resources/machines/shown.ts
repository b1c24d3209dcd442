/**
 * Machines as answers show them: a machine's heartbeat attributes are judged by its policy as it
 * is now, so the policies of the machines shown are read with them (one BatchGetItem for a page).
 */
import type { ResourceObject } from '../../jsonapi.ts';
import { getRecordItems, type StoredItem } from '../../store/records.ts';
import type { PolicyRecord } from '../policies/entity.ts';
import { machineDocument } from './document.ts';
import type { MachineRecord } from './entity.ts';

/** The documents of `machines`: their policies are read once, together. */
export async function machineDocumentsFor(machines: readonly MachineRecord[]): Promise<(machine: MachineRecord) => ResourceObject> {
  const policies = await policiesOf(machines);
  return (machine) => machineDocument(machine, policies.get(machine.policyId));
}

/** The document of one machine, with its policy read. */
export const shownMachine = async (machine: MachineRecord): Promise<ResourceObject> => (await machineDocumentsFor([machine]))(machine);

/** The policies of `machines` that still exist, by id. */
export async function policiesOf(machines: readonly MachineRecord[]): Promise<Map<string, StoredItem<PolicyRecord>>> {
  const first = machines[0];
  if (!first) return new Map();
  const ids = [...new Set(machines.map((machine) => machine.policyId))];
  const items = await getRecordItems(first.accountId, 'policies', ids);
  return new Map(items.map((item) => [item.id, item]));
}
