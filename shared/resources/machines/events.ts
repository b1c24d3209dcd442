/**
 * A machine's events: its changes, its check-outs and its heartbeat (docs/rules.md §22): a ping,
 * a reset, a late ping that revived it, and its death as the sweeper found it (once per life).
 */
export const MACHINE_EVENTS = [
  'machine.created',
  'machine.updated',
  'machine.deleted',
  'machine.owner.updated',
  'machine.checked-out',
  'machine.heartbeat.ping',
  'machine.heartbeat.reset',
  'machine.heartbeat.resurrected',
  'machine.heartbeat.dead',
] as const;
