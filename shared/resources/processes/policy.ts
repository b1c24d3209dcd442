/** Processes: a machine's running copies (shared/auth/policies/graph.ts). */
import { activations } from '../../auth/policies/graph.ts';

/**
 * Processes are reached as their machine is (they carry its owner and its license's owner); their
 * changes are a ping and their metadata (Keygen's process policy).
 */
const PING = 'ping';
export const processPolicy = activations(
  'processes',
  {
    create: 'process.create',
    list: 'process.read',
    read: 'process.read',
    update: 'process.update',
    delete: 'process.delete',
    [PING]: 'process.heartbeat.ping',
  },
  ['create', 'update', 'delete', PING],
  { licensee: ['process.create', 'process.read', 'process.update', 'process.delete', 'process.heartbeat.ping'], product: '*' },
);
