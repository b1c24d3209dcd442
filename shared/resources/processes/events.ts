/** A process's events: its metadata's update, a ping, and the sweeper's removal of a dead one (docs/rules.md §24.1). */
export const PROCESS_EVENTS = [
  'process.created',
  'process.updated',
  'process.deleted',
  'process.heartbeat.ping',
  'process.heartbeat.dead',
] as const;
