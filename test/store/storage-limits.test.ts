/**
 * Limits of the table that a request's values could reach, against DynamoDB Local, through a
 * Transaction as the services write: each failure is named by storageLimitOf (the pipeline
 * answers 422 or 400), whether DynamoDB refused it, a transaction's operation did, or the SDK's
 * marshaller did before sending; a fault of the service's own making stays what it is (a 500).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { storageLimitOf } from '#shared/store/errors.ts';
import { getItem, type Item } from '#shared/store/records.ts';
import { Transaction } from '#shared/store/transaction.ts';

const key = () => ({ PK: `TEST#${randomUUID()}`, SK: '#' });
const nested = (levels: number): unknown => (levels === 0 ? 1 : { d: nested(levels - 1) });

/** Commits the items in one transaction (a single put, or a TransactWriteItems of several); the failure, if any. */
async function commitPuts(...items: Item[]): Promise<unknown> {
  const tx = new Transaction();
  for (const item of items) tx.put(item);
  return tx.commit().then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('limits of the table reached by values', () => {
  it.each([
    ['an item over 400 KB', () => ({ ...key(), text: 'x'.repeat(450 * 1024) }), 'size'],
    ['a partition key over 2 KB', () => ({ PK: `TEST#${'k'.repeat(3000)}`, SK: '#' }), 'value'],
    ['an index key over 2 KB', () => ({ ...key(), GSI1PK: 'g'.repeat(3000), GSI1SK: '#' }), 'value'],
    ['a number below 1e-130', () => ({ ...key(), n: 1e-200 }), 'value'],
    ['a number above 9.99e125 (refused by the marshaller)', () => ({ ...key(), n: 1e200 }), 'value'],
    ['a number past 2^53', () => ({ ...key(), n: 2 ** 60 }), 'value'],
    ['a number JSON reads as Infinity', () => ({ ...key(), n: Number.POSITIVE_INFINITY }), 'value'],
    ['nesting past 32 levels', () => ({ ...key(), n: nested(40) }), 'value'],
    ['an object with a constructor key', () => ({ ...key(), n: JSON.parse('{"constructor":{"a":1}}') }), 'value'],
    ['an object with constructor and toString keys', () => ({ ...key(), n: JSON.parse('{"constructor":{"a":1},"toString":1}') }), 'value'],
  ] as const)('%s fails as a storage limit, alone or in a transaction, writing nothing', async (_, item, limit) => {
    const alone = item() as Item;
    expect(storageLimitOf(await commitPuts(alone))?.limit).toBe(limit);
    const other = key();
    const together = item() as Item;
    expect(storageLimitOf(await commitPuts(other, together))?.limit).toBe(limit);
    expect(await getItem(other)).toBeUndefined();
    if (together.PK.length < 2048) expect(await getItem({ PK: together.PK, SK: together.SK })).toBeUndefined();
  });

  it('an update over 400 KB fails the same way', async () => {
    const item = key();
    await commitPuts({ ...item, n: 1 });
    const tx = new Transaction();
    tx.patch(item, { text: 'x'.repeat(450 * 1024) });
    expect(storageLimitOf(await tx.commit().catch((error: unknown) => error))?.limit).toBe('size');
  });

  it('a malformed request of the service itself stays a plain error', async () => {
    const tx = new Transaction();
    tx.patch(key(), {});
    const failure = await tx.commit().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(storageLimitOf(failure)).toBeUndefined();
  });
});
