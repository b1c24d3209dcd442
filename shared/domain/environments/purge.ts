/**
 * The purge of a deleted environment: every item that carries the environment's ENVPK
 * (records, uniqueness markers, token lookups, counters) is deleted in batches of 25, for as
 * long as the invocation has time, then the work continues in a new message.
 *
 * Safe to run twice: each message is one numbered step; a step is claimed on the purge
 * marker before any work (a lease, so a crashed step can be taken again once it lapses),
 * a step already completed is skipped, and the claim is released when the step fails.
 * Deleting an item twice is harmless, so a repeated step ends in the same state.
 *
 * Two passes: the second, a little later, sweeps up records that requests already in flight
 * at the moment of the delete may have written after the first pass went by.
 *
 * Machines activated here on a global license hold seats of that license, and machines and
 * components made here hold their fingerprints in scopes beyond the environment (the account, or a
 * global license, policy or product), counted across environments: before a page is deleted, the
 * shares of those counts it holds are given back (shared/store/shares.ts), each once, whichever
 * step or pass meets it.
 */

import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { logger } from '../../logger.ts';
import { enqueue } from '../../queue.ts';
import { db, getTable } from '../../store/client.ts';
import { environmentMembership, type Key, purgeMarkerKey, recordKey } from '../../store/keys.ts';
import { backoff, getItem } from '../../store/records.ts';
import { giveBackShares } from '../../store/shares.ts';
import type { PurgeMessage } from './service.ts';

export interface PurgeStep extends PurgeMessage {
  /** 1 for the message the delete sends; each continuation is the next number. */
  step?: number;
  pass?: 1 | 2;
  /** Where the pass stopped (the ENV index's last evaluated key). */
  after?: Record<string, unknown>;
}

const PAGE = 500;
const BATCH = 25;
const PARALLEL_BATCHES = 8;
/** Stop taking new pages when less than this is left of the invocation. */
const RESERVE_MS = 20_000;
const LEASE_MS = 5 * 60_000;
const SECOND_PASS_DELAY_SECONDS = 30;

/** Thrown when another worker holds this step's lease: the message comes back later. */
export class StepBusy extends Error {}

export async function runPurgeStep(message: PurgeStep, remainingMs: () => number): Promise<{ removed: number; finished: boolean }> {
  const step = message.step ?? 1;
  const pass = message.pass ?? 1;
  const marker = purgeMarkerKey(message.accountId, message.environmentId);
  const log = { accountId: message.accountId, environmentId: message.environmentId, step, pass };

  if (await getItem(recordKey(message.accountId, 'environments', message.environmentId))) {
    logger.warn('purge refused: the environment still exists', log);
    return { removed: 0, finished: true };
  }
  const leaseId = `${step}:${Date.now()}:${Math.random()}`;
  if (!(await claim(marker, step, leaseId))) {
    logger.info('purge step already done', log);
    return { removed: 0, finished: true };
  }

  try {
    const started = Date.now();
    const membership = environmentMembership(message.accountId, message.environmentId);
    const readPage = (start: Record<string, unknown> | undefined) =>
      db().send(
        new QueryCommand({
          TableName: getTable(),
          IndexName: 'ENV',
          KeyConditionExpression: 'ENVPK = :env',
          ExpressionAttributeValues: { ':env': membership },
          ExclusiveStartKey: start,
          Limit: PAGE,
        }),
      );
    let after = message.after;
    let removed = 0;
    // The next page of keys is read while the current one is deleted.
    let page = await readPage(after);
    for (;;) {
      const keys = (page.Items ?? []).map(({ PK, SK }) => ({ PK, SK }) as Key);
      after = page.LastEvaluatedKey;
      const more = after && remainingMs() > RESERVE_MS;
      const [next] = await Promise.all([more ? readPage(after) : undefined, giveBackShares(keys).then(deleteAll)]);
      removed += keys.length;
      if (!more || !next) break;
      page = next;
    }

    const seconds = (Date.now() - started) / 1000;
    logger.info('purge progress', { ...log, removed, perSecond: Math.round(removed / Math.max(seconds, 0.001)) });

    if (after) {
      await enqueue('purge', { ...message, step: step + 1, pass, after } satisfies PurgeStep);
    } else if (pass === 1) {
      await enqueue('purge', { ...message, step: step + 1, pass: 2, after: undefined } satisfies PurgeStep, SECOND_PASS_DELAY_SECONDS);
    } else {
      await db().send(new DeleteCommand({ TableName: getTable(), Key: marker }));
      logger.info('purge finished', log);
      return { removed, finished: true };
    }
    await complete(marker, step, leaseId);
    return { removed, finished: false };
  } catch (error) {
    await release(marker, leaseId).catch(() => {});
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
  throw new StepBusy(`purge step ${step} is running elsewhere or waits for step ${completed + 1}`);
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

/** Deletes keys in batches of 25, a few batches at a time, retrying what DynamoDB leaves unprocessed. */
async function deleteAll(keys: Key[]) {
  const batches: Key[][] = [];
  for (let i = 0; i < keys.length; i += BATCH) batches.push(keys.slice(i, i + BATCH));
  for (let i = 0; i < batches.length; i += PARALLEL_BATCHES) {
    await Promise.all(batches.slice(i, i + PARALLEL_BATCHES).map(deleteBatch));
  }
}

async function deleteBatch(keys: Key[]) {
  let requests = keys.map((Key) => ({ DeleteRequest: { Key } }));
  for (let attempt = 0; requests.length > 0; attempt++) {
    const { UnprocessedItems } = await db().send(new BatchWriteCommand({ RequestItems: { [getTable()]: requests } }));
    requests = (UnprocessedItems?.[getTable()] ?? []) as typeof requests;
    if (requests.length > 0) await backoff(attempt);
  }
}
