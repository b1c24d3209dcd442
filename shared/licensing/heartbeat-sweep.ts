/**
 * The heartbeat sweeper: what runs every minute (EventBridge on AWS, a timer in the local stack)
 * and looks at every record that fell due since the last sweep (shared/store/due.ts), handing each
 * to the handler of its type (a machine whose heartbeat ran out, a process that died).
 *
 * The sweeper remembers how far it got in one item (`sweepCursorKey`): a sweep reads what fell due
 * after the cursor and up to now, then moves the cursor, conditional on it being where the sweep
 * found it, so two overlapping sweeps never move it back. A handler that fails leaves the cursor
 * just before what it was given, so the next sweep looks again. Handlers judge the record as it is
 * when they read it and write conditionally on that: a record looked at twice (overlapping sweeps,
 * a retried minute) ends as if looked at once, and a record changed since it fell due (pinged,
 * say) is left to its new due time.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { logger } from '../logger.ts';
import { machineDue } from '../resources/machines/sweep.ts';
import { policyDue } from '../resources/policies/sweep.ts';
import { sweepProcess } from '../resources/processes/sweep.ts';
import { db, getTable } from '../store/client.ts';
import type { AccessPattern } from '../store/data-model.ts';
import { type Due, dueBetween } from '../store/due.ts';
import type { Key } from '../store/keys.ts';
import { getItem } from '../store/records.ts';

/** Looks at one record found due at `at` (ms since the epoch); throws to have it looked at again. */
export type DueHandler = (due: Due, at: number) => Promise<void>;

/** The handlers, by the type prefix of a record's key (`A#<account>#MACHINE#<id>` → MACHINE). */
const HANDLERS: Partial<Record<string, DueHandler>> = {
  MACHINE: machineDue,
  PROCESS: sweepProcess,
  POLICY: policyDue,
};

/** Where the sweeper is: `until`, ms since the epoch up to which everything due was looked at. */
export const sweepCursorKey: Key = { PK: 'SWEEP#heartbeats', SK: '#' };

/** How far back the first sweep of a table looks. */
const FIRST_LOOKBACK_MS = 24 * 3600_000;
/** Records looked at at once. */
const PARALLEL = 10;

export interface SweepReport {
  /** Records found due. */
  due: number;
  /** Of them, those whose handler failed (looked at again next time). */
  failed: number;
  /** Where the cursor now stands (ISO 8601). */
  until: string;
}

const typeOf = (key: Key) => key.PK.split('#')[2] ?? '';

/** One sweep: everything due since the cursor and up to `at`, each handed to its handler. */
export async function sweep(at: number = Date.now()): Promise<SweepReport> {
  const cursor = await getItem(sweepCursorKey);
  const from = typeof cursor?.until === 'number' ? cursor.until : at - FIRST_LOOKBACK_MS;
  const found = await dueBetween(from, at);
  const failures: number[] = [];
  for (let i = 0; i < found.length; i += PARALLEL) {
    await Promise.all(
      found.slice(i, i + PARALLEL).map(async (due) => {
        const handler = HANDLERS[typeOf(due)];
        if (!handler) return logger.warn('a record is due that no handler looks at', { PK: due.PK });
        try {
          await handler(due, at);
        } catch (error) {
          logger.error('a due record could not be looked at; the next sweep looks again', { PK: due.PK, error: error as Error });
          failures.push(Date.parse(due.due));
        }
      }),
    );
  }
  // A failure holds the cursor just before it, so the next sweep finds it again.
  const until = failures.length > 0 ? Math.min(at, ...failures) - 1 : at;
  await moveCursor(cursor?.until as number | undefined, Math.max(until, from));
  return { due: found.length, failed: failures.length, until: new Date(until).toISOString() };
}

async function moveCursor(from: number | undefined, until: number): Promise<void> {
  try {
    await db().send(
      new PutCommand({
        TableName: getTable(),
        Item: { ...sweepCursorKey, until },
        ConditionExpression: from === undefined ? 'attribute_not_exists(PK)' : '#until = :from',
        ...(from === undefined ? {} : { ExpressionAttributeNames: { '#until': 'until' }, ExpressionAttributeValues: { ':from': from } }),
      }),
    );
  } catch (error) {
    // Another sweep moved it meanwhile: its move stands.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 50,
    name: 'A sweep: what fell due since the last',
    operation:
      "GetItem of the cursor; per minute from the cursor's to now, Query (paged) of that minute's partition with `DUESK` after the cursor and up to now; each record found handed to its type's handler (a machine: GetItem of it and of its policy, then pattern 49 with its events; a cull, pattern 34); PutItem of the cursor, conditional on `until` as read (left just before a record whose handler failed)",
    index: 'DUE; table',
    key: '`DUEPK = DUE#<minute> AND DUESK BETWEEN :after AND :now`; cursor `PK = SWEEP#heartbeats`',
    usedBy: 'workers.sweepHeartbeats (every minute)',
    tests: ['store/data-model', 'http/heartbeats', 'bench/sweeper'],
  },
  {
    n: 55,
    name: 'A policy that starts requiring heartbeats walks its machines into the due index',
    operation:
      "The policy's update puts the policy in the due index (pattern 49) with `heartbeatWalk` removed; its due handler: Query (paged, cursor) of the policy's licenses in each environment its licenses may be in (its own; for a global policy also every SHARED one), 25 licenses a sweep, and for each the Query of its machines in those environments; per machine not in the index, UpdateItem `SET DUEPK, DUESK` if `attribute_not_exists(DUESK)`; then UpdateItem of the policy, conditional on its `DUESK` as read: out of the index, or due again at once with `heartbeatWalk` = {environment, cursor}",
    index: 'table, GSI2 (licenses by policy, machines by license)',
    key: "the policy's record; machines' records",
    usedBy: 'the sweeper',
    tests: ['http/heartbeats'],
  },
];
