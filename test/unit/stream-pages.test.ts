/**
 * The local stream poller (dev/local/streams.ts) over more than one page: a full page has the
 * next round start at once, a shard read to its end has its child read at once, and `caughtUp`
 * waits for a round that left nothing to read. The stream is mocked: DynamoDB Local's page sizes
 * cannot be counted on inside the loaded suite (test/http/stream-poller.test.ts reads it for real).
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as SdkRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REPOSITORY_ROOT } from '#dev/local/stack.ts';
import { type StreamPoller, startStreamPoller } from '#dev/local/streams.ts';
import { batchesOf, nameOf } from '../support/fixtures/stream-handler.ts';

const STREAM = 'arn:aws:dynamodb:eu-west-1:000000000000:table/pages/stream/1';
const dynamodb = mockClient(DynamoDBClient);
const streams = mockClient(DynamoDBStreamsClient);
let poller: StreamPoller | undefined;

beforeEach(() => {
  dynamodb.reset();
  streams.reset();
  dynamodb.on(DescribeTableCommand).resolves({ Table: { LatestStreamArn: STREAM } });
});

afterEach(async () => {
  await poller?.stop();
  poller = undefined;
});

let sequence = 0;
const inserts = (test: string, from: number, n: number): SdkRecord[] =>
  Array.from({ length: n }, (_, i) => ({
    eventID: `e${++sequence}`,
    eventName: 'INSERT',
    dynamodb: {
      Keys: { PK: { S: `${test}#r${from + i}` } },
      NewImage: { PK: { S: `${test}#r${from + i}` }, test: { S: test }, name: { S: `r${from + i}` }, outcome: { S: 'ok' } },
      SequenceNumber: String(sequence).padStart(21, '0'),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  }));

/** A poller of the test's inserts that never waits its interval out within a test: only a round with more to read starts another. */
const start = (test: string) =>
  startStreamPoller({
    workers: [
      {
        operation: 'fixture.stream',
        handler: { module: 'test/support/fixtures/stream-handler.ts' },
        batchSize: 100,
        retryAttempts: 0,
        timeoutSeconds: 10,
        filters: [{ eventName: ['INSERT'], dynamodb: { NewImage: { test: { S: [test] } } } }],
      },
    ],
    dynamodbEndpoint: 'http://127.0.0.1:1',
    tableName: 'pages',
    region: 'eu-west-1',
    root: REPOSITORY_ROOT,
    sqsEndpoint: 'http://127.0.0.1:1',
    failureQueueUrls: {},
    pollIntervalMs: 3_600_000,
    log: () => undefined,
  });

describe('the local stream poller over several pages', () => {
  it('reads a shard again at once after a full page, and is caught up only once a page came back short', async () => {
    const test = 'full-pages';
    streams.on(DescribeStreamCommand).resolves({ StreamDescription: { Shards: [{ ShardId: 'shard-1' }] } });
    streams.on(GetShardIteratorCommand).resolves({ ShardIterator: 'it-0' });
    streams
      .on(GetRecordsCommand, { ShardIterator: 'it-0' })
      .resolves({ Records: inserts(test, 0, 1_000), NextShardIterator: 'it-1' })
      .on(GetRecordsCommand, { ShardIterator: 'it-1' })
      .resolves({ Records: inserts(test, 1_000, 1_000), NextShardIterator: 'it-2' })
      .on(GetRecordsCommand, { ShardIterator: 'it-2' })
      .resolves({ Records: inserts(test, 2_000, 50), NextShardIterator: 'it-3' })
      .on(GetRecordsCommand, { ShardIterator: 'it-3' })
      .resolves({ Records: [], NextShardIterator: 'it-3' });
    poller = await start(test);
    await poller.caughtUp();
    const handed = batchesOf(test).flat().map(nameOf);
    expect(handed).toEqual(Array.from({ length: 2_050 }, (_, i) => `r${i}`));
    // The full page was followed at once; the short one was not (the interval is an hour).
    expect(streams.commandCalls(GetRecordsCommand).map((call) => call.args[0].input.ShardIterator)).toEqual(['it-0', 'it-1', 'it-2']);
  });

  it('reads the child of a shard read to its end at once, not an interval later', async () => {
    const test = 'ended-shard';
    // The child appears as its parent closes: the first description lists the parent alone.
    streams
      .on(DescribeStreamCommand)
      .resolvesOnce({ StreamDescription: { Shards: [{ ShardId: 'parent' }] } })
      .resolves({ StreamDescription: { Shards: [{ ShardId: 'parent' }, { ShardId: 'child', ParentShardId: 'parent' }] } });
    streams
      .on(GetShardIteratorCommand, { ShardId: 'parent' })
      .resolves({ ShardIterator: 'parent-0' })
      .on(GetShardIteratorCommand, { ShardId: 'child' })
      .resolves({ ShardIterator: 'child-0' });
    // The parent ends in the second round, after a full page.
    streams
      .on(GetRecordsCommand, { ShardIterator: 'parent-0' })
      .resolves({ Records: inserts(test, 0, 1_000), NextShardIterator: 'parent-1' })
      .on(GetRecordsCommand, { ShardIterator: 'parent-1' })
      .resolves({ Records: inserts(test, 1_000, 3) })
      .on(GetRecordsCommand, { ShardIterator: 'child-0' })
      .resolves({ Records: inserts(test, 1_003, 2), NextShardIterator: 'child-1' })
      .on(GetRecordsCommand, { ShardIterator: 'child-1' })
      .resolves({ Records: [], NextShardIterator: 'child-1' });
    poller = await start(test);
    // Nobody waits on the poller here: only its own rounds, none an hour later, can read the child.
    await vi.waitFor(() => expect(batchesOf(test).flat().map(nameOf)).toEqual(Array.from({ length: 1_005 }, (_, i) => `r${i}`)), {
      timeout: 5_000,
    });
  });
});
