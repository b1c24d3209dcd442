/**
 * Fixed-window rate limits counted in the table, so a limit holds across every Lambda
 * instance. A window's counter expires through the table's TTL.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { LimitReached } from '../errors.ts';
import { db, getTable } from './client.ts';
import type { AccessPattern } from './data-model.ts';
import { rateLimitKey } from './keys.ts';
import type { Transaction } from './transaction.ts';

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch seconds when the window ends. */
  resetAt: number;
}

/** Counts one hit of `subject` in the current window; refused (and not counted) past `limit`. */
export async function hit(subject: string, limit: number, windowSeconds: number, now = Date.now()): Promise<RateLimitResult> {
  const window = Math.floor(now / 1000 / windowSeconds);
  const resetAt = (window + 1) * windowSeconds;
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: getTable(),
        Key: rateLimitKey(subject, window),
        UpdateExpression: 'ADD n :one SET expiresAt = :expires',
        ConditionExpression: 'attribute_not_exists(n) OR n < :limit',
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':expires': resetAt + windowSeconds },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return { allowed: true, limit, remaining: limit - Number(Attributes?.n ?? limit), resetAt };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return { allowed: false, limit, remaining: 0, resetAt };
    throw error;
  }
}

/**
 * A request's hit of a fixed-window limit, spent exactly once: on its own (`count`, one
 * UpdateItem), or inside the transaction of the change the request makes anyway (`within`: the
 * window's counter is one more operation of it, bounded by the limit in its own condition), so
 * such a request pays no request of its own for its limit. Past the limit, LimitReached — raised
 * by `count`, or by the transaction's commit, which then writes nothing.
 */
export class LimitHit {
  private spent = false;
  private readonly window: number;

  constructor(
    readonly subject: string,
    readonly limit: number,
    readonly windowSeconds: number,
    private readonly detail: string,
    now = Date.now(),
  ) {
    this.window = Math.floor(now / 1000 / windowSeconds);
  }

  get counted(): boolean {
    return this.spent;
  }

  private get resetAt() {
    return (this.window + 1) * this.windowSeconds;
  }

  /** Counts the hit in `tx`. */
  within(tx: Transaction): void {
    if (this.spent) return;
    this.spent = true;
    const exceeded = new LimitReached(this.detail, { limit: this.limit, resetAt: this.resetAt });
    tx.tally(rateLimitKey(this.subject, this.window), 1, { max: this.limit, exceeded, expiresAt: this.resetAt + this.windowSeconds });
  }

  /** Counts the hit now, on its own. */
  async count(): Promise<void> {
    if (this.spent) return;
    this.spent = true;
    const result = await hit(this.subject, this.limit, this.windowSeconds, this.window * this.windowSeconds * 1000);
    if (!result.allowed) throw new LimitReached(this.detail, result);
  }
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 20,
    name: 'Count a rate-limit hit',
    operation: 'UpdateItem `ADD n :1` if `n < limit`',
    index: 'table',
    key: '`PK = RATE#<subject>, SK = W#<window>`',
    usedBy:
      '`POST /passwords`, `POST /tokens` (HTTP Basic); per source address: `POST /licenses/actions/validate-key`, `POST /tokens`, `POST /passwords`',
    tests: ['store/data-model', 'http/address-limits'],
  },
];
