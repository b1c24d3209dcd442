/**
 * Processes (docs/rules.md §24, Keygen's machine processes): a program running on a machine,
 * named by its `pid`, unique on its machine. A process lives one heartbeat duration of its
 * policy after its creation and after each ping; past that it is DEAD, a ping no longer revives
 * it, and the heartbeat sweeper removes it (sweep.ts).
 */
import { digest } from '../../auth/secrets.ts';
import type { AccessPattern, MarkerKind } from '../../store/data-model.ts';
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

/** The uniqueness markers its records hold (docs/data-model.md). */
export const MARKER_KINDS: readonly MarkerKind[] = [
  { kind: PROCESS_PID_MARKER, value: "SHA-256 of `<machineId>:<pid>`: a process's pid on its machine" },
];

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

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 51,
    name: 'Start a process within maxProcesses, its pid unique on its machine',
    operation:
      "TransactWriteItems with the process: Put of the record and of its pid marker (`attribute_not_exists(PK)`), ConditionCheck that its machine exists, Update `ADD n :1` of its machine's and its license's process counts (and of each one's share when the process's environment is not the count's) with `attribute_not_exists(n) OR n <= :room` on the count the policy's processLeasingStrategy names. Every delete of a process (its own, the sweeper's, a cascade's): `ADD n :-1` of every count its item lists in `counted`, then DeleteItem of each if `n <= 0`; a machine's removal deletes its count, a license's its own",
    index: 'table',
    key: '`PK = A#<acct>#<MACHINE or LICENSE>#<id>#PROCESS_COUNT`, `SK = #` (share: `SK = E#<env>`); the marker as 12',
    usedBy: 'processes.create, processes.delete, the sweeper (52), machine, license, policy and product delete (34), the purge (37)',
    tests: ['store/data-model', 'http/processes'],
  },
  {
    n: 52,
    name: 'Ping a process: its heartbeat and its place in the due index; the sweeper removes it once dead',
    operation:
      'A ping: TransactWriteItems with its event, UpdateItem `SET lastHeartbeat, updated, DUEPK, DUESK` (due at its new deadline + 1 ms) if `attribute_exists(PK) AND lastHeartbeat = :read`; a ping that loses reads the process again (GetItem). The sweeper: Query of the DUE index minute by minute, GetItem of the process and of its policy, then TransactWriteItems: DeleteItem of the process if `lastHeartbeat = :read`, with its marker, its counts (51) and its event; a process a longer heartbeat keeps alive, UpdateItem of `DUEPK, DUESK` under the same condition',
    index: 'table; DUE',
    key: '`PK = A#<acct>#PROCESS#<id>`, `SK = #`; `DUEPK = DUE#<minute>`, `DUESK BETWEEN :after AND :until`',
    usedBy: 'processes.ping, processes.create (its first due time), the heartbeat sweeper (`sweepProcess`)',
    tests: ['store/data-model', 'http/processes'],
  },
  {
    n: 53,
    name: "A machine's processes; a license's, a product's, an owner's",
    operation: 'Query (backwards)',
    index: 'GSI2 (machine), GSI3 (license), GSI4 (product), GSI5 (owner)',
    key: '`GSI2PK = A#<acct>#E#<env>#MACHINE#<id>#PROCESS`, and as 27–30',
    usedBy: '`/machines/<id>/processes`, `?machine=&license=&product=&owner=`, cascades (34)',
    tests: ['store/data-model', 'http/processes'],
  },
];
