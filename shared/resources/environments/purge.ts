/**
 * The purge of a deleted environment: every item that carries the environment's ENVPK
 * (records, uniqueness markers, token lookups, counters) is deleted in batches of 25, for as
 * long as the invocation has time, then the work continues in a new message.
 *
 * The steps follow shared/resumable.ts, on the purge marker: each message is one numbered step,
 * claimed with a lease, safe to run twice (deleting an item twice is harmless, so a repeated step
 * ends in the same state), in two passes (the second sweeps up what requests in flight at the
 * delete wrote after the first went by).
 *
 * Machines activated here on a global license hold seats of that license, and machines and
 * components made here hold their fingerprints in scopes beyond the environment (the account, or a
 * global license, policy or product), counted across environments: before a page is deleted, the
 * shares of those counts it holds are given back (shared/store/shares.ts), each once, whichever
 * step or pass meets it.
 */

import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { logger } from '../../logger.ts';
import { runStep, type Stepped } from '../../resumable.ts';
import { db, getTable } from '../../store/client.ts';
import type { AccessPattern } from '../../store/data-model.ts';
import { environmentMembership, type Key, purgeMarkerKey, recordKey } from '../../store/keys.ts';
import { deleteItems, getItem } from '../../store/records.ts';
import { giveBackShares } from '../../store/shares.ts';
import type { PurgeMessage } from './service.ts';

export interface PurgeStep extends PurgeMessage, Stepped {
  /** Where the pass stopped (the ENV index's last evaluated key). */
  after?: Record<string, unknown>;
}

const PAGE = 500;
/** Stop taking new pages when less than this is left of the invocation. */
const RESERVE_MS = 20_000;
const SECOND_PASS_DELAY_SECONDS = 30;

export async function runPurgeStep(message: PurgeStep, remainingMs: () => number): Promise<{ removed: number; finished: boolean }> {
  const log = { accountId: message.accountId, environmentId: message.environmentId };
  if (await getItem(recordKey(message.accountId, 'environments', message.environmentId))) {
    logger.warn('purge refused: the environment still exists', { ...log, step: message.step ?? 1, pass: message.pass ?? 1 });
    return { removed: 0, finished: true };
  }
  let removed = 0;
  const outcome = await runStep<PurgeStep>({
    queue: 'purge',
    name: 'purge',
    marker: purgeMarkerKey(message.accountId, message.environmentId),
    message,
    secondPass: (first) => ({ ...first, after: undefined }),
    secondPassDelaySeconds: SECOND_PASS_DELAY_SECONDS,
    log,
    async work(current) {
      const started = Date.now();
      const after = await purgePage(current, remainingMs, (count) => {
        removed += count;
      });
      const seconds = (Date.now() - started) / 1000;
      logger.info('purge progress', {
        ...log,
        step: current.step,
        pass: current.pass,
        removed,
        perSecond: Math.round(removed / Math.max(seconds, 0.001)),
      });
      return after ? { ...current, after } : undefined;
    },
  });
  return { removed, finished: outcome !== 'continued' };
}

/**
 * Deletes the environment's items from where `message` stands, page after page while more than
 * RESERVE_MS is left; returns where it stopped, or undefined when nothing is left to read.
 */
async function purgePage(
  message: PurgeStep,
  remainingMs: () => number,
  removed: (count: number) => void,
): Promise<Record<string, unknown> | undefined> {
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
  // The next page of keys is read while the current one is deleted.
  let page = await readPage(after);
  for (;;) {
    const keys = (page.Items ?? []).map(({ PK, SK }) => ({ PK, SK }) as Key);
    after = page.LastEvaluatedKey;
    const more = after && remainingMs() > RESERVE_MS;
    const [next] = await Promise.all([more ? readPage(after) : undefined, giveBackShares(keys).then(deleteItems)]);
    removed(keys.length);
    if (!more || !next) return after;
    page = next;
  }
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 13,
    name: 'Every item of an environment',
    operation:
      'Query, keys only, then BatchWriteItem deletes (of all but the shares of license machine counts, of process counts and of fingerprint counts, which pattern 37 gives back and deletes)',
    index: 'ENV',
    key: '`ENVPK = A#<acct>#E#<env>`',
    usedBy: 'purge worker',
    tests: ['store/data-model'],
  },
  {
    n: 14,
    name: 'Purge progress',
    operation: 'UpdateItem (conditional)',
    index: 'table',
    key: '`PK = A#<acct>#PURGE#<env>`',
    usedBy: 'purge worker',
    tests: ['unit/purge-environment'],
  },
];
