/**
 * Writes whose answer is lost, against DynamoDB Local: the request was carried out, its answer
 * never came, and the SDK sent the same request again. The store's writes must hold when that
 * happens: a transaction (DynamoDB takes its ClientRequestToken, the same on every attempt, as the
 * one already done), and a consumer's claim (shared/store/once.ts), which finds its own write, and
 * which, when no try got an answer, is given back rather than held until its lease ends.
 */
import { randomUUID } from 'node:crypto';
import type { DeserializeMiddleware } from '@smithy/types';
import { afterEach, describe, expect, it } from 'vitest';
import { db } from '#shared/store/client.ts';
import { collectionName, collectionPartition, counterKey, onceKey, recordKey } from '#shared/store/keys.ts';
import { once } from '#shared/store/once.ts';
import { getItem } from '#shared/store/records.ts';
import { Transaction } from '#shared/store/transaction.ts';

const LOSING = 'loseOneAnswer';

/** The next request of `command` (the low-level name, as the document client's commands have it) is sent twice, the first answer thrown away: what the SDK does when an answer is lost. */
function loseNextAnswer(command: string): { lost: () => boolean } {
  let pending = true;
  const middleware: DeserializeMiddleware<any, any> = (next, context) => async (args) => {
    if (!pending || context.commandName !== command) return next(args);
    pending = false;
    await next(args);
    return next(args);
  };
  db().middlewareStack.add(middleware, { step: 'deserialize', priority: 'low', name: LOSING });
  return { lost: () => !pending };
}

/** Every request of `command` is carried out and its answer lost, the SDK's retries included, until the test ends. */
function loseEveryAnswer(command: string): void {
  const middleware: DeserializeMiddleware<any, any> = (next, context) => async (args) => {
    if (context.commandName !== command) return next(args);
    await next(args);
    throw Object.assign(new Error('no answer (simulated)'), { name: 'TimeoutError', $metadata: {} });
  };
  db().middlewareStack.add(middleware, { step: 'deserialize', priority: 'low', name: LOSING });
}

afterEach(() => {
  db().middlewareStack.remove(LOSING);
});

describe('a write whose answer was lost, sent again', () => {
  it('a transaction is carried out once: its record made, its collection counted once', async () => {
    const accountId = randomUUID();
    const id = randomUUID();
    const created = new Date().toISOString();
    const losing = loseNextAnswer('TransactWriteItemsCommand');
    const tx = new Transaction();
    tx.create({ type: 'products', id, accountId, environmentId: null, created, updated: created });
    await tx.commit();
    expect(losing.lost()).toBe(true);
    expect(await getItem(recordKey(accountId, 'products', id))).toMatchObject({ id });
    const counter = await getItem(counterKey(collectionPartition(accountId, null, collectionName('products'))));
    expect(counter?.n).toBe(1);
  });

  it("a consumer's claim holds: the work runs once, and a later copy of the message is skipped", async () => {
    const losing = loseNextAnswer('PutItemCommand');
    const id = randomUUID();
    let runs = 0;
    expect(await once('lost-answers-test', id, async () => void runs++, { leaseSeconds: 60 })).toBe(true);
    expect(losing.lost()).toBe(true);
    expect(await once('lost-answers-test', id, async () => void runs++, { leaseSeconds: 60 })).toBe(false);
    expect(runs).toBe(1);
  });

  it("a consumer's claim that got no answer at all is given back: the message's retry acts at once", async () => {
    const id = randomUUID();
    let runs = 0;
    loseEveryAnswer('PutItemCommand');
    await expect(once('lost-answers-test', id, async () => void runs++, { leaseSeconds: 60 })).rejects.toThrow(/no answer/);
    db().middlewareStack.remove(LOSING);
    expect(await getItem(onceKey('lost-answers-test', id))).toBeUndefined();
    expect(await once('lost-answers-test', id, async () => void runs++, { leaseSeconds: 60 })).toBe(true);
    expect(runs).toBe(1);
  });
});
