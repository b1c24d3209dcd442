/**
 * Machines as answers show them: a machine's heartbeat attributes are judged by its policy as it
 * is now, so the policies of the machines shown are read with them (one BatchGetItem for a page).
 */
import type { ResourceObject } from '../../jsonapi.ts';
import type { Item } from '../../store/records.ts';
import { shownWithPolicies } from '../policies/beside.ts';
import { machineDocument } from './document.ts';
import type { MachineRecord } from './entity.ts';

/** The documents of `machines`, each with its policy (`read`: what a list read beside its page). */
export function machineDocumentsFor(
  machines: readonly MachineRecord[],
  read: readonly Item[] = [],
): Promise<(machine: MachineRecord) => ResourceObject> {
  return shownWithPolicies(machines, read, (machine, policy) => machineDocument(machine, policy));
}

/** The document of one machine, with its policy read. */
export const shownMachine = async (machine: MachineRecord): Promise<ResourceObject> => (await machineDocumentsFor([machine]))(machine);
