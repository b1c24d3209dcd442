/**
 * Machines as answers show them: a machine's heartbeat attributes are judged by its policy as it
 * is now, so the policies of the machines shown are read with them (one BatchGetItem for a page).
 */
import type { ResourceObject } from '../../jsonapi.ts';
import { type Key, recordKey } from '../../store/keys.ts';
import { getRecordItems, type Item, itemOfType, type StoredItem } from '../../store/records.ts';
import type { PolicyRecord } from '../policies/entity.ts';
import { machineDocument } from './document.ts';
import type { MachineRecord } from './entity.ts';

/**
 * The documents of `machines`: their policies are read once, together, unless they were read
 * already (`read`: a list reads them beside its page, shared/store/paging.ts).
 */
export async function machineDocumentsFor(
  machines: readonly MachineRecord[],
  read: readonly Item[] = [],
): Promise<(machine: MachineRecord) => ResourceObject> {
  const policies = await policiesOf(machines, read);
  return (machine) => machineDocument(machine, policies.get(machine.policyId));
}

/** The document of one machine, with its policy read. */
export const shownMachine = async (machine: MachineRecord): Promise<ResourceObject> => (await machineDocumentsFor([machine]))(machine);

/** The policies of `machines` that still exist, by id: those among `read`, the others read now. */
export async function policiesOf(
  machines: readonly MachineRecord[],
  read: readonly Item[] = [],
): Promise<Map<string, StoredItem<PolicyRecord>>> {
  const first = machines[0];
  if (!first) return new Map();
  const known = new Map(read.flatMap((item) => itemOfType('policies', item) ?? []).map((policy) => [policy.id, policy]));
  const missing = [...new Set(machines.map((machine) => machine.policyId))].filter((id) => !known.has(id));
  for (const item of missing.length ? await getRecordItems(first.accountId, 'policies', missing) : []) known.set(item.id, item);
  return known;
}

/** What a list of machines reads beside its page: each machine's policy (the index entry names it). */
export const policiesBeside =
  (accountId: string) =>
  (entry: Item): Key[] =>
    typeof entry.policyId === 'string' ? [recordKey(accountId, 'policies', entry.policyId)] : [];
