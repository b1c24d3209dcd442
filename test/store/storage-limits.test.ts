/**
 * Limits of the table that a request's values could reach, against DynamoDB Local: each is
 * told apart as ValueNotStorable (the API answers 413 or 422), while a fault of the service's
 * own making stays what it is (a 500).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ValueNotStorable } from '#shared/store/errors.ts';
import { getItem } from '#shared/store/records.ts';
import { Transaction } from '#shared/store/transaction.ts';

const key = () => ({ PK: `TEST#${randomUUID()}`, SK: '#' });

async function commitPut(item: Record<string, unknown> & { PK: string; SK: string }) {
  const tx = new Transaction();
  tx.put(item);
  await tx.commit();
}

describe('limits of the table reached by values', () => {
  it.each([
    ['an item over 400 KB', () => ({ ...key(), text: 'x'.repeat(450 * 1024) }), 'size'],
    ['a partition key over 2 KB', () => ({ PK: `TEST#${'k'.repeat(3000)}`, SK: '#' }), 'size'],
    ['a number below 1e-130', () => ({ ...key(), n: 1e-200 }), 'number'],
    ['a number above 9.99e125', () => ({ ...key(), n: 1e200 }), 'number'],
  ] as const)('%s fails as ValueNotStorable (%s), writing nothing', async (_, item, limit) => {
    const written = item();
    const failure = await commitPut(written).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ValueNotStorable);
    expect((failure as ValueNotStorable).limit).toBe(limit);
    if (written.PK.length < 2048) expect(await getItem({ PK: written.PK, SK: written.SK })).toBeUndefined();
  });

  it('an update over 400 KB fails the same way', async () => {
    const item = key();
    await commitPut({ ...item, n: 1 });
    const tx = new Transaction();
    tx.patch(item, { text: 'x'.repeat(450 * 1024) });
    await expect(tx.commit()).rejects.toBeInstanceOf(ValueNotStorable);
  });

  it('a malformed request of the service itself stays a plain error', async () => {
    const tx = new Transaction();
    tx.patch(key(), {});
    const failure = await tx.commit().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(ValueNotStorable);
  });
});
