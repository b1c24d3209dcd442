/**
 * Long work done from a queue in numbered steps (an environment's purge, the cascade of a large
 * removal), safe when a message arrives twice and resumed after a crash:
 *
 * - A marker item tracks the work: `completed` is the last step done. The request that starts
 *   the work writes it (completed 0) with the change that calls for the work.
 * - Each message is one step. A step is claimed on the marker before any work: only when the
 *   previous step is complete and nobody holds a live lease on it (a lease lapses, so a crashed
 *   step can be taken again); a step already completed is skipped, and one that another worker
 *   holds is retried later (`StepBusy`). The claim is released when the step fails.
 * - A step works while the invocation has time left, then sends the next step's message (where
 *   it stopped) and only then marks itself complete, so a crash in between repeats the step
 *   rather than losing the rest.
 * - Two passes: the second, a little later, sweeps up what requests in flight at the start of the
 *   work wrote after the first pass went by (and what an index had not shown yet). After it the
 *   marker goes.
 *
 * The work itself must be repeatable: a step run twice must end in the same state.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from './config.ts';
import { logger } from './logger.ts';
import { enqueue } from './queue.ts';
import type { QueueName } from './routes.ts';
import { db, getTable } from './store/client.ts';
import type { Key } from './store/keys.ts';
import { getItem } from './store/records.ts';

/** Where a message stands in its work. */
export interface Stepped {
  /** 1 for the message that starts the work; each continuation is the next number. */
  step?: number;
  pass?: 1 | 2;
}

/** How long a claim holds a step: longer than any invocation runs. */
export const LEASE_MS = 5 * 60_000;

/** Thrown when another worker holds this step's lease, or its previous step is not complete yet: the message comes back later. */
export class StepBusy extends Error {}

export interface StepWork<M extends Stepped> {
  queue: QueueName;
  /** The item that tracks the work (see above); its absence means the work is over. */
  marker: Key;
  message: M;
  /**
   * Does as much of the current pass as the invocation's time allows, from where `message`
   * stands; returns the message to go on with in this pass, or undefined when the pass is done.
   */
  work(message: M): Promise<M | undefined>;
  /** The first message of the second pass. */
  secondPass(message: M): M;
  /** How long the second pass waits (unless SECOND_PASS_DELAY_SECONDS says otherwise: config.ts). */
  secondPassDelaySeconds: number;
  /** What remains once the second pass is done, before the marker goes (idempotent). */
  finish?(): Promise<void>;
  /** Names the work in the log: its kind (`purge`) and what it is about. */
  name: string;
  log: Record<string, unknown>;
}

export type StepOutcome = 'skipped' | 'continued' | 'finished';

/** Runs the step `message` names (see the top). */
export async function runStep<M extends Stepped>(run: StepWork<M>): Promise<StepOutcome> {
  const step = run.message.step ?? 1;
  const pass = run.message.pass ?? 1;
  const log = { ...run.log, step, pass };
  const leaseId = `${step}:${Date.now()}:${Math.random()}`;
  if (!(await claim(run.marker, step, leaseId))) {
    logger.info(`${run.name} step already done`, log);
    return 'skipped';
  }
  try {
    const next = await run.work({ ...run.message, step, pass });
    if (next) {
      await enqueue(run.queue, { ...next, step: step + 1, pass });
    } else if (pass === 1) {
      const delay = config.secondPassDelaySeconds ?? run.secondPassDelaySeconds;
      await enqueue(run.queue, { ...run.secondPass(run.message), step: step + 1, pass: 2 }, delay);
    } else {
      await run.finish?.();
      await db().send(new DeleteCommand({ TableName: getTable(), Key: run.marker }));
      logger.info(`${run.name} finished`, log);
      return 'finished';
    }
    await complete(run.marker, step, leaseId);
    return 'continued';
  } catch (error) {
    await release(run.marker, leaseId).catch(() => {});
    throw error;
  }
}

/** Takes step `step` if the previous one is complete and nobody holds a live lease; false if it was done already. */
async function claim(marker: Key, step: number, leaseId: string): Promise<boolean> {
  const now = Date.now();
  try {
    await db().send(
      new UpdateCommand({
        TableName: getTable(),
        Key: marker,
        UpdateExpression: 'SET lease = :lease, leaseUntil = :until',
        ConditionExpression: 'attribute_exists(PK) AND completed = :previous AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
        ExpressionAttributeValues: { ':lease': leaseId, ':until': now + LEASE_MS, ':previous': step - 1, ':now': now },
      }),
    );
    return true;
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
  const current = await getItem(marker);
  const completed = Number(current?.completed ?? 0);
  if (!current || completed >= step) return false;
  throw new StepBusy(`step ${step} is running elsewhere or waits for step ${completed + 1}`);
}

async function complete(marker: Key, step: number, leaseId: string) {
  await db().send(
    new UpdateCommand({
      TableName: getTable(),
      Key: marker,
      UpdateExpression: 'SET completed = :step REMOVE lease, leaseUntil',
      ConditionExpression: 'lease = :lease',
      ExpressionAttributeValues: { ':step': step, ':lease': leaseId },
    }),
  );
}

async function release(marker: Key, leaseId: string) {
  await db().send(
    new UpdateCommand({
      TableName: getTable(),
      Key: marker,
      UpdateExpression: 'REMOVE lease, leaseUntil',
      ConditionExpression: 'lease = :lease',
      ExpressionAttributeValues: { ':lease': leaseId },
    }),
  );
}
