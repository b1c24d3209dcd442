/**
 * Processes (docs/rules.md §24, Keygen's machine processes): a program running on a machine,
 * named by its `pid`, unique on its machine. A process lives one heartbeat duration of its
 * policy after its creation and after each ping; past that it is DEAD, a ping no longer revives
 * it, and the heartbeat sweeper removes it (sweep.ts).
 */
import { digest } from '../../auth/secrets.ts';
import type { StoredRecord } from '../../store/records.ts';
import type { UnderMachine } from '../machines/entity.ts';
import { type Heartbeat, heartbeatSeconds } from '../policies/heartbeat.ts';

/** Its machine's owner and license's owner (UnderMachine) reach the process as they reach the machine. */
export interface ProcessRecord extends StoredRecord, UnderMachine {
  type: 'processes';
  pid: string;
  metadata: Record<string, unknown>;
  /** The creation, then the last ping (ISO 8601). */
  lastHeartbeat: string;
}

/**
 * The collections a process joins, by the name of the parent it names: the order is the store's
 * (the first is GSI2, the next GSI3...), never to be changed (docs/data-model.md).
 */
export const PROCESS_PARENTS = { machine: 'machines', license: 'licenses', product: 'products', owner: 'users' } as const;

/** A pid is held on its machine by a marker keyed by the SHA-256 of the machine's id and the pid. */
export const PROCESS_PID_MARKER = 'PROCESS_PID';

export const processPidValue = (machineId: string, pid: string) => digest(`${machineId}:${pid}`);

export const PROCESS_STATUSES = ['ALIVE', 'DEAD'] as const;
export type ProcessStatus = (typeof PROCESS_STATUSES)[number];

/** What a process shows of its heartbeat. */
export interface ProcessHeartbeat {
  status: ProcessStatus;
  /** Seconds a ping keeps the process alive: the policy's heartbeatDuration. */
  interval: number;
  lastHeartbeat: string;
  nextHeartbeat: string;
}

/** When a heartbeat given at `last` (ISO 8601) stops keeping the process alive. */
export const deadlineOf = (last: string, rules: Heartbeat): number => Date.parse(last) + heartbeatSeconds(rules) * 1000;

/**
 * When the sweeper is to look at a process whose last heartbeat was `last`: the first
 * millisecond it is dead (it is alive at its deadline itself).
 */
export const dueOf = (last: string, rules: Heartbeat): Date => new Date(deadlineOf(last, rules) + 1);

/** The process's heartbeat under its policy's `rules` at `at` (ms since the epoch): ALIVE up to its deadline, DEAD after. */
export function heartbeatAt(process: Pick<ProcessRecord, 'lastHeartbeat'>, rules: Heartbeat, at: number = Date.now()): ProcessHeartbeat {
  const deadline = deadlineOf(process.lastHeartbeat, rules);
  return {
    status: deadline >= at ? 'ALIVE' : 'DEAD',
    interval: heartbeatSeconds(rules),
    lastHeartbeat: process.lastHeartbeat,
    nextHeartbeat: new Date(deadline).toISOString(),
  };
}
