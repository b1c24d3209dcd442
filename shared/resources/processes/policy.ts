/** Processes: a machine's running copies (shared/auth/policies/graph.ts). */
import { activations } from '../../auth/policies/graph.ts';

/**
 * Processes are reached as their machine is (they carry its owner and its license's owner), and
 * never updated: a ping is their one change besides removal (Keygen's process policy).
 */
const PING = 'ping';
export const processPolicy = activations(
  'processes',
  { create: 'process.create', list: 'process.read', read: 'process.read', delete: 'process.delete', [PING]: 'process.heartbeat.ping' },
  ['create', 'delete', PING],
  { licensee: ['process.create', 'process.read', 'process.delete', 'process.heartbeat.ping'], product: '*' },
);
