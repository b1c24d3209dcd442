/**
 * The bench bills writes by AWS's rules (test/bench/capacity.ts) because DynamoDB Local's report
 * is wrong for transactions. For a single write it is right: there the model must give, index by
 * index, the units DynamoDB Local reports, whatever the item's size and whichever of its indexed
 * attributes a write changes.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, getTable } from '#shared/store/client.ts';
import { billedAction } from '../bench/capacity.ts';

type Item = Record<string, unknown>;

const key = () => ({ PK: `capacity-model#${randomUUID()}`, SK: '#' });
const read = async (k: Item) => (await db().send(new GetCommand({ TableName: getTable(), Key: k, ConsistentRead: true }))).Item;
const reported = (capacity: { CapacityUnits?: number } | undefined) => capacity?.CapacityUnits;

/** In a collection's index (GSI1) and a parent's (GSI2), naming a license (a filtered id, held by both indexes). */
const inCollections = (k: Item, extra: Item = {}): Item => ({
  ...k,
  GSI1PK: 'capacity-model#collection',
  GSI1SK: `2026-01-01T00:00:00.000Z#${k.PK}`,
  GSI2PK: 'capacity-model#parent',
  GSI2SK: `2026-01-01T00:00:00.000Z#${k.PK}`,
  licenseId: 'license',
  ...extra,
});

async function put(item: Item) {
  const before = await read({ PK: item.PK, SK: item.SK });
  const { ConsumedCapacity } = await db().send(new PutCommand({ TableName: getTable(), Item: item, ReturnConsumedCapacity: 'TOTAL' }));
  return { model: billedAction('write', before, item, false).wcu, local: reported(ConsumedCapacity) };
}

async function update(k: Item, expression: string, values: Item) {
  const before = await read(k);
  const { ConsumedCapacity } = await db().send(
    new UpdateCommand({
      TableName: getTable(),
      Key: k,
      UpdateExpression: expression,
      ...(expression.includes('#text') && { ExpressionAttributeNames: { '#text': 'text' } }),
      ExpressionAttributeValues: values,
      ReturnConsumedCapacity: 'TOTAL',
    }),
  );
  return { model: billedAction('write', before, await read(k), false).wcu, local: reported(ConsumedCapacity) };
}

describe('the write units the bench bills', () => {
  it.each([
    ['a small item in two collections', (k: Item) => inCollections(k)],
    ['an item of 1.5 KB in two collections', (k: Item) => inCollections(k, { text: 'a'.repeat(1500) })],
    ['an item of 3 KB in two collections', (k: Item) => inCollections(k, { text: 'é'.repeat(1500), n: 12345.678 })],
    ['an item in no collection', (k: Item) => ({ ...k, text: 'x'.repeat(1200), list: [1, 'two', { three: true }] })],
  ])('are those DynamoDB Local reports for a single put of %s, new and then replaced', async (_, make) => {
    const item = make(key());
    const first = await put(item);
    expect(first.model).toBe(first.local);
    const again = await put({ ...item, more: 'b'.repeat(700) });
    expect(again.model).toBe(again.local);
  });

  it('are those DynamoDB Local reports for updates that touch no index, an indexed id, an index key, and for a delete', async () => {
    const k = key();
    await put(inCollections(k, { text: 'a'.repeat(1500) }));
    const cases = [
      await update(k, 'SET #text = :v', { ':v': 'short' }),
      await update(k, 'SET licenseId = :v', { ':v': 'another license' }),
      await update(k, 'SET GSI1SK = :v', { ':v': 'moved' }),
      await update(k, 'REMOVE GSI2PK, GSI2SK SET #text = :v', { ':v': 'c'.repeat(2500) }),
    ];
    for (const { model, local } of cases) expect(model).toBe(local);
    const before = await read(k);
    const { ConsumedCapacity } = await db().send(new DeleteCommand({ TableName: getTable(), Key: k, ReturnConsumedCapacity: 'TOTAL' }));
    expect(billedAction('write', before, undefined, false).wcu).toBe(reported(ConsumedCapacity));
  });
});
