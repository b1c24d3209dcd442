/**
 * Acting once per message, for a queue consumer (a message may arrive twice, and SQS retries
 * what failed). Before the work, a claim item is written, conditional on there being none or
 * only one whose holder's lease ran out (a crashed holder); the work runs; the claim is then
 * marked done and kept a few days, so a copy arriving later is skipped. If the work fails,
 * the claim is removed, so the message's retry acts; so is a claim whose write got no answer
 * (carried out or not), and the SDK's retry of a claim whose answer was lost finds it its own. A copy arriving while the work runs is not
 * skipped — the first may still fail — but refused with ClaimInProgress, so its message comes
 * back later.
 */
import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, getTable } from './client.ts';
import type { AccessPattern } from './data-model.ts';
import { onceKey } from './keys.ts';

export class ClaimInProgress extends Error {
  override name = 'ClaimInProgress';
}

export interface OnceOptions {
  /** How long a claim holds without its holder finishing: longer than the consumer's timeout. */
  leaseSeconds: number;
}

/** How long a finished claim is kept, so that later copies are skipped (TTL). */
const KEEP_SECONDS = 3 * 24 * 3600;

const conditionFailed = (error: unknown) => error instanceof ConditionalCheckFailedException;

/** Runs `work` unless the message `id` of `consumer` was worked already; true when it ran. */
export async function once(consumer: string, id: string, work: () => Promise<void>, options: OnceOptions): Promise<boolean> {
  const key = onceKey(consumer, id);
  const lease = randomUUID();
  const now = Math.floor(Date.now() / 1000);
  const ours = { ConditionExpression: 'lease = :lease', ExpressionAttributeValues: { ':lease': lease } };
  /** Gives our claim back, unless a holder that took it over after our lease ran out holds it now. */
  const giveBack = () =>
    db()
      .send(new DeleteCommand({ TableName: getTable(), Key: key, ...ours }))
      .catch((release) => {
        if (!conditionFailed(release)) throw release;
      });
  try {
    await db().send(
      new PutCommand({
        TableName: getTable(),
        Item: { ...key, status: 'IN_PROGRESS', lease, leaseUntil: now + options.leaseSeconds, expiresAt: now + KEEP_SECONDS },
        // The last: this very claim, written by an earlier try of this request whose answer was lost.
        ConditionExpression: 'attribute_not_exists(PK) OR (#status = :inProgress AND leaseUntil < :now) OR lease = :lease',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':inProgress': 'IN_PROGRESS', ':now': now, ':lease': lease },
        // The claim in the way comes back with the refusal: no second read to see what it is.
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  } catch (error) {
    if (!conditionFailed(error)) {
      // No answer told whether the claim was written: given back if it was, so a retry need not wait out its lease.
      await giveBack().catch(() => undefined);
      throw error;
    }
    if ((error as ConditionalCheckFailedException).Item?.status?.S === 'DONE') return false;
    throw new ClaimInProgress(`${consumer} ${id} is being worked on`);
  }

  try {
    await work();
  } catch (error) {
    await giveBack();
    throw error;
  }
  await db()
    .send(
      new UpdateCommand({
        TableName: getTable(),
        Key: key,
        UpdateExpression: 'SET #status = :done REMOVE leaseUntil',
        ExpressionAttributeNames: { '#status': 'status' },
        ...ours,
        ExpressionAttributeValues: { ...ours.ExpressionAttributeValues, ':done': 'DONE' },
      }),
    )
    .catch((error) => {
      // Our lease ran out and another holder took the claim over: it will mark it done.
      if (!conditionFailed(error)) throw error;
    });
  return true;
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 22,
    name: 'Act once per reset request',
    operation:
      'Put conditional on no claim or a claim whose lease is over; then Update to `DONE`, or Delete when the work fails, both conditional on the lease; a refused claim comes back with the refusal (`ReturnValuesOnConditionCheckFailure`)',
    index: 'table',
    key: '`PK = ONCE#password-reset, SK = <resetId>`',
    usedBy: 'password-reset worker (`once`)',
    tests: ['store/data-model', 'http/password-reset'],
  },
];
