/**
 * Fixed-window rate limits counted in the table, so a limit holds across every Lambda
 * instance: exactly, one request a hit (`hit`), or in batches each container adds (`tallyHit`).
 * A window's counter expires through the table's TTL.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { LimitReached } from '../errors.ts';
import { db, getTable } from './client.ts';
import type { AccessPattern } from './data-model.ts';
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

/**
 * Hits a container counted of one subject in one window: `shared` is the window's shared total
 * as the container last read it (its own hits added so far among them), `adding` the hits it is
 * adding to it now, `unshared` the hits it counted since.
 */
interface Tally {
  window: number;
  shared: number;
  adding: number;
  unshared: number;
}

/**
 * The subjects a container keeps tallies of, oldest dropped first beyond this (their unshared hits
 * with them): a subject dropped and met again in the same window starts from a shared total of 0,
 * and may be admitted up to a batch more before it reads the total again, as one more container
 * would (docs/rules.md §7.3).
 */
const TALLIES = 10_000;

/** How many hits a container counts before it adds them to the shared total: a tenth of the limit, at least 1. */
export const tallyBatch = (limit: number) => Math.max(1, Math.floor(limit / 10));

/**
 * A container's counts of fixed-window limits, shared through the table in batches (pattern 20),
 * so that a hit costs no request of its own: a container adds its hits to the window's shared
 * counter once it has counted `tallyBatch(limit)` of them, reading back the total every container
 * has added. A hit is refused (LimitReached, and not counted) when that total as last read and the
 * hits counted here since reach the limit.
 *
 * One container serving one request at a time (as Lambda's do) counts exactly; one serving many at
 * once (the local stack) never admits more than the limit either, and may refuse a little early
 * while an addition is in flight (its hits then count twice, never not at all). C containers
 * serving one request at a time hold fewer than a batch B unshared each, so a client spread over
 * them is admitted at most limit − 1 + (C + 1) × B times in a window: once the shared total reaches
 * the limit, every container that adds its batch reads it and refuses, and each admits at most B
 * hits before it adds them (docs/rules.md §7.3). Such containers never refuse a client under the
 * limit: what a container knows of is never more than what was admitted.
 */
export class Tallies {
  private readonly tallies = new Map<string, Tally>();

  async hit(subject: string, limit: number, windowSeconds: number, detail: string, now = Date.now()): Promise<void> {
    const window = Math.floor(now / 1000 / windowSeconds);
    let tally = this.tallies.get(subject);
    if (tally?.window !== window) {
      tally = { window, shared: 0, adding: 0, unshared: 0 };
      this.tallies.delete(subject);
      this.tallies.set(subject, tally);
      if (this.tallies.size > TALLIES) this.tallies.delete(this.tallies.keys().next().value as string);
    }
    const resetAt = (window + 1) * windowSeconds;
    // Hits being added count already: the total read back may or may not hold them yet (counted twice, never missed).
    if (tally.shared + tally.adding + tally.unshared >= limit) throw new LimitReached(detail, { limit, resetAt });
    tally.unshared += 1;
    if (tally.unshared < tallyBatch(limit)) return;
    const adding = tally.unshared;
    tally.unshared = 0;
    tally.adding += adding;
    try {
      const { Attributes } = await db().send(
        new UpdateCommand({
          TableName: getTable(),
          Key: rateLimitKey(subject, window),
          UpdateExpression: 'ADD n :adding SET expiresAt = :expires',
          ExpressionAttributeValues: { ':adding': adding, ':expires': resetAt + windowSeconds },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      // Totals read by additions made at once come back in any order: the largest is the latest.
      tally.shared = Math.max(tally.shared, Number(Attributes?.n ?? 0));
    } catch (error) {
      tally.unshared += adding;
      throw error;
    } finally {
      tally.adding -= adding;
    }
  }
}

/** This container's tallies. */
const containerTallies = new Tallies();

/** Counts a hit of `subject` in this container's tallies (Tallies). */
export const tallyHit = (subject: string, limit: number, windowSeconds: number, detail: string) =>
  containerTallies.hit(subject, limit, windowSeconds, detail);

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 20,
    name: 'Count a rate-limit hit',
    operation:
      'UpdateItem `ADD n :1` if `n < limit` (`hit`); per source address, `ADD n :batch` with `ReturnValues: UPDATED_NEW` once a container has counted a batch of hits (`tallyHit`: a tenth of the limit, so an address under it costs no request)',
    index: 'table',
    key: '`PK = RATE#<subject>, SK = W#<window>`',
    usedBy:
      '`POST /passwords`, `POST /tokens` (HTTP Basic), each per e-mail address; per source address: `POST /licenses/actions/validate-key`, `POST /tokens`, `POST /passwords`',
    tests: ['store/data-model', 'http/address-limits'],
  },
];
