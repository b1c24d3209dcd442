/**
 * A machine's heartbeat as its policy judges it now (docs/rules.md §22.1, Keygen's model): a
 * machine is monitored when its policy requires heartbeats or once it has pinged; it is
 * NOT_STARTED while it has never pinged and is either unmonitored or younger than one duration,
 * ALIVE while its next heartbeat is due, DEAD after. RESURRECTED is what the ping that revived a
 * dead machine answers.
 */
import { type Heartbeat, heartbeatSeconds, revivalSeconds } from '../policies/heartbeat.ts';

export const HEARTBEAT_STATUSES = ['NOT_STARTED', 'ALIVE', 'DEAD', 'RESURRECTED'] as const;
export type HeartbeatStatus = (typeof HEARTBEAT_STATUSES)[number];

/** What a machine keeps of its heartbeat. */
export interface HeartbeatState {
  created: string;
  /** ISO 8601; null or absent: never pinged (or reset). */
  lastHeartbeat?: string | null;
}

export interface MachineHeartbeat {
  requireHeartbeat: boolean;
  heartbeatStatus: HeartbeatStatus;
  /** Seconds. */
  heartbeatDuration: number;
  lastHeartbeat: string | null;
  nextHeartbeat: string | null;
}

/** When a heartbeat pinged at `last` (ISO 8601) stops keeping the machine alive. */
export const deadlineOf = (last: string, rules: Heartbeat): Date => new Date(Date.parse(last) + heartbeatSeconds(rules) * 1000);

/**
 * When a machine's heartbeat runs out: one duration after its last ping, or after its creation
 * when it has none (never pinged, or reset), which is when a required heartbeat declares it dead.
 */
export const machineDeadlineOf = (machine: HeartbeatState, rules: Heartbeat): Date =>
  deadlineOf(machine.lastHeartbeat ?? machine.created, rules);

/**
 * Until when (ms since the epoch) a ping may revive the machine once dead: its deadline plus its
 * policy's resurrection window (Infinity under ALWAYS_REVIVE; the deadline itself under NO_REVIVE).
 */
export const revivableUntil = (machine: HeartbeatState, rules: Heartbeat): number =>
  machineDeadlineOf(machine, rules).getTime() + revivalSeconds(rules.heartbeatResurrectionStrategy) * 1000;

/**
 * When a new machine is first due to be looked at by the sweeper: when a heartbeat its policy
 * requires runs out (from its creation, whatever the basis: one never pinged dies too); null when
 * none is required (it is looked at once it pings).
 */
export const firstDueOf = (created: string, rules: Heartbeat): Date | null => (rules.requireHeartbeat ? deadlineOf(created, rules) : null);

/** The machine's heartbeat under its policy's `rules` at `at` (ms since the epoch). */
export function heartbeatAt(machine: HeartbeatState, rules: Heartbeat, at: number = Date.now()): MachineHeartbeat {
  const lastHeartbeat = machine.lastHeartbeat ?? null;
  const duration = heartbeatSeconds(rules);
  const next = lastHeartbeat === null ? null : deadlineOf(lastHeartbeat, rules);
  const requireHeartbeat = rules.requireHeartbeat || lastHeartbeat !== null;
  let heartbeatStatus: HeartbeatStatus;
  if (next === null) {
    const young = Date.parse(machine.created) >= at - duration * 1000;
    heartbeatStatus = !requireHeartbeat || young ? 'NOT_STARTED' : 'DEAD';
  } else {
    heartbeatStatus = next.getTime() >= at ? 'ALIVE' : 'DEAD';
  }
  return { requireHeartbeat, heartbeatStatus, heartbeatDuration: duration, lastHeartbeat, nextHeartbeat: next?.toISOString() ?? null };
}
