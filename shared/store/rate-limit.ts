/**
 * Fixed-window rate limits counted in the table, so a limit holds across every Lambda
 * instance. A window's counter expires through the table's TTL.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, getTable } from './client.ts';
import { rateLimitKey } from './keys.ts';

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
