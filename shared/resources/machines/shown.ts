/**
 * Machines as answers show them: a machine's heartbeat attributes are judged by its policy as it
 * is now, so the policies of the machines shown are read with them (one BatchGetItem for a page).
 */
import type { ResourceObject } from '../../jsonapi.ts';
import type { Item } from '../../store/records.ts';
import { policiesOf } from '../policies/beside.ts';
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
