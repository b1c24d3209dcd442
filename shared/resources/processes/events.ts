/** A process's events: no update; a ping, and the sweeper's removal of a dead one (docs/rules.md §14.4). */
export const PROCESS_EVENTS = ['process.created', 'process.deleted', 'process.heartbeat.ping', 'process.heartbeat.dead'] as const;
