/** Machines: a license's activations (shared/auth/policies/graph.ts). */
import { activations, CHECK_OUT, crud } from '../../auth/policies/graph.ts';

/**
 * A machine's heartbeat (docs/rules.md §22.2, §22.3): pinged by whoever may act on the machine (a user not
 * on a protected license), reset by administrators and its product only (licensees lack the permission).
 */
const HEARTBEAT_PING = 'heartbeat.ping';
const HEARTBEAT_RESET = 'heartbeat.reset';
const OWNER_UPDATE = 'owner.update';

export const machinePolicy = activations(
  'machines',
  {
    ...crud('machine'),
    [CHECK_OUT]: 'machine.check-out',
    [HEARTBEAT_PING]: 'machine.heartbeat.ping',
    [HEARTBEAT_RESET]: 'machine.heartbeat.reset',
    // Its owner (owner.ts): one of its license's users, given by administrators, the product or the license's owner.
    [OWNER_UPDATE]: 'machine.owner.update',
  },
  ['create', 'delete', CHECK_OUT, HEARTBEAT_PING],
  {
    licensee: ['machine.create', 'machine.read', 'machine.delete', 'machine.check-out', 'machine.heartbeat.ping'],
    user: ['machine.owner.update'],
    product: '*',
  },
  [OWNER_UPDATE],
);
