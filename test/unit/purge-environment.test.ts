/**
 * The purge worker's step (docs/rules.md §15.3: bounded batches, safe to run twice, resumable after a
 * crash), against mocked DynamoDB and SQS clients: no local stack needed.
 *
 * The mock keeps a tiny model of the table: the environment's items (what the ENV index
 * returns, 500 a page), the purge marker (completed step, lease), and whether the environment
 * record still exists. Conditions on the marker are evaluated as DynamoDB would.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { BatchWriteCommand, DeleteCommand, DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type PurgeStep, runPurgeStep } from '#shared/resources/environments/purge.ts';
import { environmentMembership, purgeMarkerKey, recordKey } from '#shared/store/keys.ts';

const TABLE = 'unit-purge-table';
const QUEUE = 'https://sqs.unit.test/000000000000/purge';
const ACCOUNT = '11111111-1111-4111-8111-111111111111';
const ENV = '22222222-2222-4222-8222-222222222222';
const MEMBERSHIP = environmentMembership(ACCOUNT, ENV);
const MARKER_PK = purgeMarkerKey(ACCOUNT, ENV).PK;
const ENV_RECORD_PK = recordKey(ACCOUNT, 'environments', ENV).PK;

const saved = { table: process.env.TABLE_NAME, queue: process.env.PURGE_QUEUE_URL };
beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
  process.env.PURGE_QUEUE_URL = QUEUE;
});
afterAll(() => {
  process.env.TABLE_NAME = saved.table;
  process.env.PURGE_QUEUE_URL = saved.queue;
});

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);

type Key = { PK: string; SK: string };
const keyString = (key: Key) => `${key.PK}|${key.SK}`;

interface Model {
  /** The environment's items, in ENV index order. */
  items: Key[];
  deleted: Set<string>;
  marker: { completed: number; lease?: string; leaseUntil?: number } | undefined;
  environmentExists: boolean;
  batchCalls: Key[][];
  /** Keys to leave unprocessed on the first BatchWrite that holds them. */
  leaveUnprocessed: Set<string>;
  /** Throw on this BatchWrite call (1-based), once. */
  failOnBatchCall?: number;
  queries: number;
  sent: { body: PurgeStep; delay: number | undefined }[];
}

let model: Model;

function newModel(count: number, overrides: Partial<Model> = {}): Model {
  return {
    items: Array.from({ length: count }, (_, i) => recordKey(ACCOUNT, 'users', `u${String(i).padStart(5, '0')}`)),
    deleted: new Set(),
    marker: { completed: 0 },
    environmentExists: false,
    batchCalls: [],
    leaveUnprocessed: new Set(),
    queries: 0,
    sent: [],
    ...overrides,
  };
}

const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

function install() {
  ddb.reset();
  sqs.reset();
  ddb.on(GetCommand).callsFake((input) => {
    expect(input.TableName).toBe(TABLE);
    if (input.Key.PK === ENV_RECORD_PK)
      return { Item: model.environmentExists ? { ...input.Key, type: 'environments', id: ENV } : undefined };
    if (input.Key.PK === MARKER_PK)
      return { Item: model.marker && { ...input.Key, accountId: ACCOUNT, environmentId: ENV, ...model.marker } };
    return {};
  });
  ddb.on(QueryCommand).callsFake((input) => {
    expect(input.TableName).toBe(TABLE);
    expect(input.IndexName).toBe('ENV');
    expect(input.ExpressionAttributeValues[':env']).toBe(MEMBERSHIP);
    model.queries++;
    // The index holds what has not been deleted yet, from just after ExclusiveStartKey.
    const live = model.items.filter((key) => !model.deleted.has(keyString(key)));
    const start = input.ExclusiveStartKey ? live.findIndex((key) => key.PK > input.ExclusiveStartKey.PK) : 0;
    const from = start < 0 ? live.length : start;
    const page = live.slice(from, from + input.Limit);
    const more = from + input.Limit < live.length;
    return {
      Items: page.map((key) => ({ ...key, ENVPK: MEMBERSHIP })),
      ...(more ? { LastEvaluatedKey: { ...page.at(-1)!, ENVPK: MEMBERSHIP } } : {}),
    };
  });
  ddb.on(BatchWriteCommand).callsFake((input) => {
    const requests = input.RequestItems[TABLE] as { DeleteRequest: { Key: Key } }[];
    const keys = requests.map((r) => r.DeleteRequest.Key);
    model.batchCalls.push(keys);
    if (model.failOnBatchCall === model.batchCalls.length) {
      model.failOnBatchCall = undefined;
      throw new Error('ProvisionedThroughputExceeded (simulated crash)');
    }
    const unprocessed = keys.filter((key) => model.leaveUnprocessed.delete(keyString(key)));
    for (const key of keys) if (!unprocessed.includes(key)) model.deleted.add(keyString(key));
    return unprocessed.length
      ? { UnprocessedItems: { [TABLE]: unprocessed.map((Key) => ({ DeleteRequest: { Key } })) } }
      : { UnprocessedItems: {} };
  });
  ddb.on(UpdateCommand).callsFake((input) => {
    expect(input.Key.PK).toBe(MARKER_PK);
    const values = input.ExpressionAttributeValues;
    const marker = model.marker;
    if (input.UpdateExpression.startsWith('SET lease')) {
      // claim: the marker exists, the previous step is complete, and no live lease.
      if (
        !marker ||
        marker.completed !== values[':previous'] ||
        (marker.leaseUntil !== undefined && !(marker.leaseUntil < values[':now']))
      ) {
        throw conditionFailed();
      }
      marker.lease = values[':lease'];
      marker.leaseUntil = values[':until'];
    } else if (input.UpdateExpression.startsWith('SET completed')) {
      if (!marker || marker.lease !== values[':lease']) throw conditionFailed();
      marker.completed = values[':step'];
      delete marker.lease;
      delete marker.leaseUntil;
    } else if (input.UpdateExpression.startsWith('REMOVE lease')) {
      if (!marker || marker.lease !== values[':lease']) throw conditionFailed();
      delete marker.lease;
      delete marker.leaseUntil;
    } else {
      throw new Error(`unexpected update ${input.UpdateExpression}`);
    }
    return {};
  });
  ddb.on(DeleteCommand).callsFake((input) => {
    expect(input.Key.PK).toBe(MARKER_PK);
    model.marker = undefined;
    return {};
  });
  sqs.on(SendMessageCommand).callsFake((input) => {
    expect(input.QueueUrl).toBe(QUEUE);
    model.sent.push({ body: JSON.parse(input.MessageBody!), delay: input.DelaySeconds });
    return { MessageId: String(model.sent.length) };
  });
}

beforeEach(() => {
  model = newModel(0);
  install();
});

const message: PurgeStep = { accountId: ACCOUNT, environmentId: ENV };
const plentyOfTime = () => 120_000;
const allDeletedKeys = () => model.batchCalls.flat().map(keyString);

describe('a purge step', () => {
  it('deletes what the ENV index returns in BatchWriteItem calls of at most 25, retrying UnprocessedItems', async () => {
    model = newModel(1234);
    const keys = model.items.map(keyString);
    model.leaveUnprocessed = new Set([keys[3]!, keys[40]!, keys[41]!, keys[777]!]);
    install();
    const result = await runPurgeStep(message, plentyOfTime);
    expect(result).toEqual({ removed: 1234, finished: false });
    expect(model.batchCalls.length).toBeGreaterThanOrEqual(Math.ceil(1234 / 25));
    for (const call of model.batchCalls) {
      expect(call.length).toBeGreaterThan(0);
      expect(call.length).toBeLessThanOrEqual(25);
    }
    // Every key deleted; the unprocessed ones sent again.
    expect(new Set(allDeletedKeys())).toEqual(new Set(keys));
    expect(model.deleted).toEqual(new Set(keys));
    for (const key of [keys[3]!, keys[40]!, keys[41]!, keys[777]!]) expect(allDeletedKeys().filter((k) => k === key)).toHaveLength(2);
    expect(allDeletedKeys()).toHaveLength(1234 + 4);
    // The pass is over: the second pass is queued, delayed, as the next step; step 1 is complete.
    expect(model.sent).toEqual([{ body: { accountId: ACCOUNT, environmentId: ENV, step: 2, pass: 2 }, delay: 30 }]);
    expect(model.marker).toEqual({ completed: 1 });
  });

  it('when time runs low, stops and sends a continuation with after = LastEvaluatedKey and step + 1', async () => {
    model = newModel(1200);
    install();
    // Less than the worker's reserve: time for the first page only.
    const result = await runPurgeStep(message, () => 10_000);
    expect(result).toEqual({ removed: 500, finished: false });
    expect(model.queries).toBe(1);
    expect(model.deleted.size).toBe(500);
    for (const call of model.batchCalls) expect(call.length).toBeLessThanOrEqual(25);
    expect(model.batchCalls).toHaveLength(20);
    const lastOfPage = model.items[499]!;
    expect(model.sent).toEqual([
      { body: { accountId: ACCOUNT, environmentId: ENV, step: 2, pass: 1, after: { ...lastOfPage, ENVPK: MEMBERSHIP } }, delay: 0 },
    ]);
    expect(model.marker).toEqual({ completed: 1 });

    // The continuation resumes after that key and, with time, finishes the pass.
    const next = model.sent[0]!.body;
    model.sent = [];
    model.batchCalls = [];
    const second = await runPurgeStep(next, plentyOfTime);
    expect(second).toEqual({ removed: 700, finished: false });
    expect(model.deleted.size).toBe(1200);
    expect(new Set(allDeletedKeys())).toEqual(new Set(model.items.slice(500).map(keyString)));
    expect(model.sent).toEqual([{ body: { accountId: ACCOUNT, environmentId: ENV, step: 3, pass: 2 }, delay: 30 }]);
    expect(model.marker).toEqual({ completed: 2 });

    // The second pass finds nothing left, removes the marker and ends.
    const last = model.sent[0]!.body;
    model.sent = [];
    const third = await runPurgeStep(last, plentyOfTime);
    expect(third).toEqual({ removed: 0, finished: true });
    expect(model.marker).toBeUndefined();
    expect(model.sent).toEqual([]);
  });

  it('a failure mid-way releases the lease and rethrows; the same message run again resumes and finishes', async () => {
    // A clean run, for reference.
    model = newModel(300);
    install();
    await runPurgeStep(message, plentyOfTime);
    const clean = { sent: model.sent, marker: model.marker, deleted: new Set(model.deleted) };

    model = newModel(300, { failOnBatchCall: 3 });
    install();
    await expect(runPurgeStep(message, plentyOfTime)).rejects.toThrow(/simulated crash/);
    // The lease is released, the step not completed, nothing queued.
    expect(model.marker).toEqual({ completed: 0 });
    expect(model.sent).toEqual([]);
    expect(model.deleted.size).toBeLessThan(300);
    const releases = ddb.commandCalls(UpdateCommand).filter((c) => c.args[0].input.UpdateExpression!.startsWith('REMOVE lease'));
    expect(releases).toHaveLength(1);

    // Redelivered: it claims the step again and ends exactly as the clean run did.
    const left = model.items.filter((k) => !model.deleted.has(keyString(k))).length;
    expect(left).toBeGreaterThan(0);
    const again = await runPurgeStep(message, plentyOfTime);
    expect(again).toEqual({ removed: left, finished: false });
    expect(model.deleted).toEqual(clean.deleted);
    expect(model.sent).toEqual(clean.sent);
    expect(model.marker).toEqual(clean.marker);
  });

  it('a message whose step is already completed does nothing', async () => {
    model = newModel(50, { marker: { completed: 3 } });
    install();
    for (const step of [1, 2, 3]) {
      const result = await runPurgeStep({ ...message, step, pass: step === 1 ? 1 : 2 }, plentyOfTime);
      expect(result).toEqual({ removed: 0, finished: true });
    }
    expect(model.queries).toBe(0);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(0);
    expect(ddb.commandCalls(DeleteCommand)).toHaveLength(0);
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
    expect(model.marker).toEqual({ completed: 3 });
  });

  it('a message for a purge that has finished (marker gone) does nothing', async () => {
    model = newModel(5, { marker: undefined });
    install();
    expect(await runPurgeStep(message, plentyOfTime)).toEqual({ removed: 0, finished: true });
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(0);
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
  });

  it('two deliveries of the same step: the second neither deletes nor queues anything', async () => {
    model = newModel(60);
    install();
    await runPurgeStep(message, plentyOfTime);
    const calls = model.batchCalls.length;
    const sent = model.sent.length;
    expect(await runPurgeStep(message, plentyOfTime)).toEqual({ removed: 0, finished: true });
    expect(model.batchCalls).toHaveLength(calls);
    expect(model.sent).toHaveLength(sent);
  });

  it('refuses to run while the environment record still exists', async () => {
    model = newModel(40, { environmentExists: true });
    install();
    const result = await runPurgeStep(message, plentyOfTime);
    expect(result.removed).toBe(0);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(0);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
    expect(model.marker).toEqual({ completed: 0 });
    expect(model.deleted.size).toBe(0);
  });
});
