/**
 * The local stream poller (dev/local/streams.ts) against a table of its own in the run's
 * DynamoDB Local, with a fabricated stream worker (test/support/fixtures/stream-handler.ts): what
 * Lambda's DynamoDB event source does, as the relay relies on it. Each test's poller lets through
 * only its own records (a filter on the test's id), so the tests share the table.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '#dev/local/stack.ts';
import { type StreamPoller, type StreamPollerOptions, startStreamPoller } from '#dev/local/streams.ts';
import { batchesOf, nameOf } from '../support/fixtures/stream-handler.ts';
import { stack } from '../support/stack.ts';

const TABLE = `stream-poller-${randomUUID().slice(0, 8)}`;
const dynamodb = new DynamoDBClient({});
const sqs = new SQSClient({});
const pollers: StreamPoller[] = [];

beforeAll(async () => {
  await dynamodb.send(
    new CreateTableCommand({
      TableName: TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    }),
  );
});

afterAll(async () => {
  await Promise.all(pollers.map((poller) => poller.stop()));
  dynamodb.destroy();
  sqs.destroy();
});

type Outcome = 'ok' | 'fail' | 'fail-once' | 'throw';

/** Writes one record of the test: `name` is its key within the test. */
const write = (test: string, name: string, outcome: Outcome = 'ok') =>
  dynamodb.send(
    new PutItemCommand({
      TableName: TABLE,
      Item: { PK: { S: `${test}#${name}` }, test: { S: test }, name: { S: name }, outcome: { S: outcome } },
    }),
  );

/** A poller of the test's inserts, with an on-failure queue of its own. */
async function poll(test: string, options: Partial<StreamPollerOptions> & { batchSize?: number; retryAttempts?: number } = {}) {
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({ QueueName: `stream-failures-${test.slice(0, 8)}-${randomUUID().slice(0, 4)}` }),
  );
  const poller = await startStreamPoller({
    workers: [
      {
        operation: 'fixture.stream',
        handler: { module: 'test/support/fixtures/stream-handler.ts' },
        batchSize: options.batchSize ?? 10,
        retryAttempts: options.retryAttempts ?? 3,
        timeoutSeconds: 10,
        filters: [{ eventName: ['INSERT'], dynamodb: { NewImage: { test: { S: [test] } } } }],
      },
    ],
    dynamodbEndpoint: stack().dynamodb,
    tableName: TABLE,
    region: stack().region,
    root: REPOSITORY_ROOT,
    sqsEndpoint: stack().sqs,
    failureQueueUrls: { 'fixture.stream': QueueUrl as string },
    retryDelayMs: () => 10,
    log: () => undefined,
    ...options,
  });
  pollers.push(poller);
  return { poller, failureQueueUrl: QueueUrl as string };
}

const names = (test: string) => batchesOf(test).map((batch) => batch.map(nameOf));

describe('the local stream poller', () => {
  it('hands on only the records its filters let through, oldest first, Lambda-shaped, a batch at a time, from before it started', async () => {
    const test = randomUUID();
    await write(test, 'before');
    const { poller } = await poll(test, { batchSize: 3 });
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) await write(test, name);
    // Not let through: another test's insert, and a change that is not an insert.
    await write(randomUUID(), 'other');
    await dynamodb.send(
      new UpdateItemCommand({
        TableName: TABLE,
        Key: { PK: { S: `${test}#a` } },
        UpdateExpression: 'SET touched = :yes',
        ExpressionAttributeValues: { ':yes': { BOOL: true } },
      }),
    );
    await poller.caughtUp();

    const batches = batchesOf(test);
    expect(batches.flat().map(nameOf)).toEqual(['before', 'a', 'b', 'c', 'd', 'e', 'f']);
    for (const batch of batches) expect(batch.length).toBeLessThanOrEqual(3);
    const [first] = batches.flat();
    expect(first).toMatchObject({
      eventName: 'INSERT',
      eventSource: 'aws:dynamodb',
      eventSourceARN: expect.stringContaining(`table/${TABLE}/stream/`),
      dynamodb: {
        Keys: { PK: { S: `${test}#before` } },
        NewImage: { test: { S: test }, name: { S: 'before' }, outcome: { S: 'ok' } },
        SequenceNumber: expect.stringMatching(/^\d+$/),
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
    });
    expect(typeof first?.dynamodb?.ApproximateCreationDateTime).toBe('number');
  });

  it('retries a batch from the first record it reports failed, and only from there', async () => {
    const test = randomUUID();
    for (const [name, outcome] of [
      ['a', 'ok'],
      ['b', 'fail-once'],
      ['c', 'ok'],
    ] as const)
      await write(test, name, outcome);
    const { poller } = await poll(test);
    await poller.caughtUp();
    expect(names(test)).toEqual([
      ['a', 'b', 'c'],
      ['b', 'c'],
    ]);
  });

  it('splits a batch that throws, describes a record that keeps failing in its on-failure queue after its retries, and goes on', async () => {
    const test = randomUUID();
    for (const [name, outcome] of [
      ['a', 'ok'],
      ['poison', 'throw'],
      ['c', 'ok'],
    ] as const)
      await write(test, name, outcome);
    const { poller, failureQueueUrl } = await poll(test, { retryAttempts: 3 });
    await poller.caughtUp();
    await write(test, 'after');
    await poller.caughtUp();

    // The batch, then its halves in order, the first halved again, the poison alone until its three retries are spent.
    expect(names(test)).toEqual([['a', 'poison', 'c'], ['a', 'poison'], ['a'], ['poison'], ['poison'], ['c'], ['after']]);
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: failureQueueUrl, MaxNumberOfMessages: 10 }));
    const poison = batchesOf(test)
      .flat()
      .find((record) => nameOf(record) === 'poison');
    expect(Messages.map((message) => JSON.parse(message.Body ?? '{}'))).toEqual([
      expect.objectContaining({
        requestContext: expect.objectContaining({ condition: 'RetryAttemptsExhausted', approximateInvokeCount: 4 }),
        DDBStreamBatchInfo: expect.objectContaining({
          startSequenceNumber: poison?.dynamodb?.SequenceNumber,
          endSequenceNumber: poison?.dynamodb?.SequenceNumber,
          batchSize: 1,
          streamArn: poison?.eventSourceARN,
        }),
      }),
    ]);
  });

  it('goes on after the last record it handed on when restarted with its positions, and starts over without them', async () => {
    const test = randomUUID();
    const positionsFile = join(mkdtempSync(join(tmpdir(), 'stream-positions-')), 'positions.json');
    await write(test, 'first');
    const kept = await poll(test, { positionsFile });
    await kept.poller.caughtUp();
    await kept.poller.stop();
    await write(test, 'second');

    const restarted = await poll(test, { positionsFile });
    await restarted.poller.caughtUp();
    expect(names(test).flat()).toEqual(['first', 'second']);

    const fresh = await poll(test);
    await fresh.poller.caughtUp();
    expect(names(test).flat()).toEqual(['first', 'second', 'first', 'second']);
  });

  it('is caught up only once what was written before has been handed on', async () => {
    const test = randomUUID();
    const { poller } = await poll(test);
    await poller.caughtUp();
    await write(test, 'now');
    await poller.caughtUp();
    expect(names(test)).toEqual([['now']]);
  });
});
