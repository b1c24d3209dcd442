/**
 * A machine's heartbeat actions (docs/rules.md §14.3), each under two paths as Keygen has them:
 * `.../actions/ping` and `.../actions/reset`, and the older `ping-heartbeat` and `reset-heartbeat`
 * (one route-table entry each, answering alike).
 */
import { declare } from '../http/declaration.ts';

const ping = {
  auth: 'bearer',
  params: ['id'],
  answers: { 200: { resource: 'machines' } },
  // 422 MACHINE_HEARTBEAT_DEAD; 409: the machine kept changing while the ping was made.
  faults: [403, 409, 422],
} as const;

const reset = {
  auth: 'bearer',
  params: ['id'],
  answers: { 200: { resource: 'machines' } },
  // 422 MACHINE_HEARTBEAT_DEAD: the sweeper is deactivating it; 409 as for a ping.
  faults: [403, 409, 422],
} as const;

export const machineHeartbeats = {
  ping: declare({
    operation: 'machines.ping',
    summary: "Ping a machine's heartbeat: alive for one more heartbeat duration, or revived within its resurrection window",
    ...ping,
  }),
  pingHeartbeat: declare({ operation: 'machines.pingHeartbeat', summary: 'Ping a machine’s heartbeat (the older path of ping)', ...ping }),
  reset: declare({
    operation: 'machines.reset',
    summary: "Reset a machine's heartbeat: never pinged again, watched only if its policy requires heartbeats",
    ...reset,
  }),
  resetHeartbeat: declare({
    operation: 'machines.resetHeartbeat',
    summary: 'Reset a machine’s heartbeat (the older path of reset)',
    ...reset,
  }),
};
