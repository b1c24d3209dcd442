/**
 * Calls the stream workers' handlers (the outbox relay) with batches of the table's stream records
 * read from DynamoDB Local, the way Lambda's DynamoDB event source does, beside the queue poller
 * (poller.ts):
 *
 * - Every shard is read, one page at a time per shard, oldest record first: DescribeStream finds
 *   the shards (again whenever one ends, and every few seconds, so the children of a split are
 *   found), a child is read only once its parent is read to its end, and GetShardIterator /
 *   GetRecords read each from where its worker stands.
 * - Each shard is read four times a second, as Lambda polls it (a round starts `pollIntervalMs`
 *   after the last one started), whether the last read found records or not; only a page that
 *   came back full (more records are waiting) or a shard read to its end (its children wait) has
 *   the next round start at once. So a burst of writes costs DynamoDB Local no more reads than the
 *   event source would make, each of them handing on what the quarter second brought.
 * - Only the records one of the worker's filters matches are handed on (the event source's filter
 *   criteria; the local poller understands lists of values, which is what the route table's
 *   filters use), up to `batchSize` at a time, as a `DynamoDBStreamEvent` shaped as Lambda's.
 * - The handler's `batchItemFailures` are honoured: the batch is retried from its first failed
 *   record; a handler that throws has its batch split in two, each half retried on its own; after
 *   `retryAttempts` retries the batch's description (Lambda's on-failure record: shard and
 *   sequence numbers) goes to the worker's on-failure queue and the shard goes on. Records do
 *   not age out here (`maxRecordAgeSeconds`): DynamoDB Local stamps them to the minute only.
 *
 * Where a worker stands: a new worker starts at TRIM_HORIZON, the oldest record the stream holds,
 * so nothing committed before it started is missed. With a persistent table (`positionsFile`),
 * the last record handed on of each shard is written after each batch, and a restart goes on
 * after it: only a batch that was in flight when the stack stopped is handed on again (which the
 * consumers take in their stride: each acts once per message). In memory there is nothing to go
 * on from: the table is new.
 */

import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type AttributeValue,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type _Record as SdkRecord,
  type Shard,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent, AttributeValue as LambdaAttributeValue } from 'aws-lambda';
import type { HandlerSource } from '#shared/routes.ts';
import { localAwsConfig } from './aws-clients.ts';
import { createHandlerLoader } from './handler-modules.ts';
import { lambdaContext } from './lambda-context.ts';
import type { PollerActivity } from './poller.ts';

/** What the poller needs of a stream worker (shared/routes.ts, `streamWorkers`). */
export interface PolledStreamWorker {
  operation: string;
  handler: HandlerSource;
  batchSize: number;
  retryAttempts: number;
  timeoutSeconds: number;
  filters: readonly Record<string, unknown>[];
}

export interface StreamPollerOptions {
  workers: readonly PolledStreamWorker[];
  dynamodbEndpoint: string;
  tableName: string;
  region: string;
  root: string;
  sqsEndpoint: string;
  /** The on-failure queue's URL, by worker operation. */
  failureQueueUrls: Readonly<Record<string, string>>;
  /** Where the workers' positions are kept across restarts; omitted: every start is at TRIM_HORIZON. */
  positionsFile?: string;
  /** From the start of one round to the start of the next, unless a page came back full (Lambda polls a shard four times a second). */
  pollIntervalMs?: number;
  /** Pause before the retry of a failed batch. */
  retryDelayMs?: (retry: number) => number;
  log?: (message: string, error?: unknown) => void;
}

export interface StreamPoller {
  /** Batches running now and started so far, counted as the queue poller counts its own (idle.ts). */
  activity(): PollerActivity;
  /**
   * Resolves once the rounds over every shard that began after the call have read each to a page
   * that was not full: every record written before the call has then been handed to its worker
   * (or was no worker's).
   */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

/** Shards are looked for again at least this often: a split's children show up by then. */
const REFRESH_MS = 5000;
/** GetRecords returns at most 1000 records. */
const READ_LIMIT = 1000;
const DEFAULT_POLL_INTERVAL_MS = 250;
const defaultRetryDelay = (retry: number) => Math.min(100 * 2 ** retry, 2000);

/** The SDK's attribute value (binary as bytes) as Lambda's event carries it (binary as base64). */
export function toLambdaValue(value: AttributeValue): LambdaAttributeValue {
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BS !== undefined) return { BS: value.BS.map((item) => Buffer.from(item).toString('base64')) };
  if (value.M !== undefined) return { M: mapValues(value.M) };
  if (value.L !== undefined) return { L: value.L.map(toLambdaValue) };
  return value as LambdaAttributeValue;
}

const mapValues = (image: Record<string, AttributeValue>): Record<string, LambdaAttributeValue> =>
  Object.fromEntries(Object.entries(image).map(([name, value]) => [name, toLambdaValue(value)]));

const toLambdaImage = (image: Record<string, AttributeValue> | undefined) => image && mapValues(image);

/** A stream record as Lambda hands it to a function. */
export function toLambdaRecord(record: SdkRecord, streamArn: string, region: string): DynamoDBRecord {
  const change = record.dynamodb ?? {};
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion,
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    eventSourceARN: streamArn,
    dynamodb: {
      ApproximateCreationDateTime: change.ApproximateCreationDateTime && change.ApproximateCreationDateTime.getTime() / 1000,
      Keys: toLambdaImage(change.Keys),
      NewImage: toLambdaImage(change.NewImage),
      OldImage: toLambdaImage(change.OldImage),
      SequenceNumber: change.SequenceNumber,
      SizeBytes: change.SizeBytes,
      StreamViewType: change.StreamViewType,
    },
  };
}

/** Whether an event filter pattern matches a record: every key of the pattern, its list holding the record's value. */
export function matchesPattern(value: unknown, pattern: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.includes(value);
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(pattern as Record<string, unknown>).every(([key, inner]) =>
    matchesPattern((value as Record<string, unknown>)[key], inner),
  );
}

/** Refuses a pattern this poller would not judge as Lambda does (an operator such as `prefix`, rather than a list of values). */
function checkPattern(pattern: unknown, operation: string): void {
  if (Array.isArray(pattern)) {
    if (pattern.some((value) => typeof value === 'object' && value !== null)) {
      throw new Error(`${operation}: the local stream poller matches lists of values only, not ${JSON.stringify(pattern)}`);
    }
    return;
  }
  for (const inner of Object.values(pattern as Record<string, unknown>)) checkPattern(inner, operation);
}

type Positions = Record<string, { streamArn: string; shards: Record<string, string> }>;

function readPositions(file: string | undefined): Positions {
  if (!file || !existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Positions;
  } catch {
    return {};
  }
}

const compareSequence = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);

interface ShardReader {
  shard: Shard;
  iterator?: string;
  /** The last record of the shard handed on (or passed over by the filters). */
  position?: string;
}

type Outcome = { ok: true } | { ok: false; from: number; threw: boolean };

export async function startStreamPoller(options: StreamPollerOptions): Promise<StreamPoller> {
  const config = localAwsConfig(options.dynamodbEndpoint, options.region);
  const dynamodb = new DynamoDBClient(config);
  const streams = new DynamoDBStreamsClient(config);
  const sqs = new SQSClient(localAwsConfig(options.sqsEndpoint, options.region));
  const handlerFor = createHandlerLoader(options.root);
  const log = options.log ?? ((message, error) => console.error(message, error ?? ''));
  const retryDelay = options.retryDelayMs ?? defaultRetryDelay;
  const pollInterval = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  for (const worker of options.workers) for (const pattern of worker.filters) checkPattern(pattern, worker.operation);

  const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: options.tableName }));
  const latest = Table?.LatestStreamArn;
  if (!latest) throw new Error(`The table ${options.tableName} has no stream`);
  const streamArn: string = latest;

  const positions = readPositions(options.positionsFile);
  const savePositions = () => {
    if (!options.positionsFile) return;
    const temporary = `${options.positionsFile}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(positions, null, 2)}\n`);
    renameSync(temporary, options.positionsFile);
  };

  const activity: PollerActivity = { running: 0, started: 0 };
  const stopping = new AbortController();
  let wake: () => void = () => {};
  let roundsStarted = 0;
  let roundsDone = 0;
  /** Someone waits for a round (`caughtUp`): the next one starts without the pause. */
  let wanted = false;
  const waiters: { round: number; resolve: () => void }[] = [];

  async function describeShards(): Promise<Shard[]> {
    const shards: Shard[] = [];
    let after: string | undefined;
    do {
      const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: after }));
      shards.push(...(StreamDescription?.Shards ?? []));
      after = StreamDescription?.LastEvaluatedShardId;
    } while (after);
    return shards;
  }

  /** One worker's consumption of the stream: its shards, where it stands in each, and the shards it read to their end. */
  function consumer(worker: PolledStreamWorker) {
    const own = positions[worker.operation]?.streamArn === streamArn ? positions[worker.operation] : undefined;
    const standing = { streamArn, shards: { ...own?.shards } };
    positions[worker.operation] = standing;
    const readers = new Map<string, ShardReader>();
    const ended = new Set<string>();
    let refreshedAt = 0;

    async function refresh(): Promise<void> {
      const shards = await describeShards();
      for (const shard of shards) {
        const id = shard.ShardId ?? '';
        if (!readers.has(id) && !ended.has(id)) readers.set(id, { shard, position: standing.shards[id] });
      }
      refreshedAt = Date.now();
    }

    async function iteratorOf(reader: ShardReader): Promise<string | undefined> {
      const ShardId = reader.shard.ShardId;
      const at = reader.position
        ? ({ ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: reader.position } as const)
        : ({ ShardIteratorType: 'TRIM_HORIZON' } as const);
      try {
        return (await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId, ...at }))).ShardIterator;
      } catch (error) {
        // What it stood after has left the stream: the oldest record still there is next.
        if (!(error instanceof TrimmedDataAccessException)) throw error;
        return (await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId, ShardIteratorType: 'TRIM_HORIZON' })))
          .ShardIterator;
      }
    }

    /** Reads one page of a shard and hands its matching records on; true when shards are to be read again at once (its page was full, or it ended: its children are read next). */
    async function readShard(reader: ShardReader): Promise<boolean> {
      reader.iterator ??= await iteratorOf(reader);
      let page: GetRecordsCommandOutput | undefined;
      try {
        page = reader.iterator
          ? await streams.send(new GetRecordsCommand({ ShardIterator: reader.iterator, Limit: READ_LIMIT }))
          : undefined;
      } catch (error) {
        if (!(error instanceof ExpiredIteratorException || error instanceof TrimmedDataAccessException)) throw error;
        // Read again at once, from where it stands.
        reader.iterator = undefined;
        return true;
      }
      const records = (page?.Records ?? []).map((record) => toLambdaRecord(record, streamArn, options.region));
      const matching = records.filter((record) => worker.filters.some((pattern) => matchesPattern(record, pattern)));
      for (let i = 0; i < matching.length; i += worker.batchSize) {
        await handOn(worker, reader.shard.ShardId ?? '', matching.slice(i, i + worker.batchSize));
      }
      const last = records.at(-1)?.dynamodb?.SequenceNumber;
      if (last) {
        reader.position = last;
        standing.shards[reader.shard.ShardId ?? ''] = last;
        savePositions();
      }
      reader.iterator = page?.NextShardIterator;
      if (!reader.iterator) {
        // Closed and read to its end: its children may be read now.
        readers.delete(reader.shard.ShardId ?? '');
        ended.add(reader.shard.ShardId ?? '');
        refreshedAt = 0;
      }
      return records.length >= READ_LIMIT || !reader.iterator;
    }

    /** One round over every shard that may be read (its parent read to its end, or gone); true when one is to be read again at once. */
    return async function round(): Promise<boolean> {
      if (Date.now() - refreshedAt > REFRESH_MS) await refresh();
      let again = false;
      for (const reader of [...readers.values()]) {
        const parent = reader.shard.ParentShardId;
        if (parent && readers.has(parent)) continue;
        if (await readShard(reader)) again = true;
      }
      return again;
    };
  }

  /** Invokes the worker with one batch: what it failed, from the first failed record. */
  async function invoke(worker: PolledStreamWorker, records: DynamoDBRecord[]): Promise<Outcome> {
    activity.started += 1;
    const event: DynamoDBStreamEvent = { Records: records };
    try {
      const handler = await handlerFor(worker.handler);
      const response = (await handler(event, lambdaContext(worker.operation, worker.timeoutSeconds, options.region))) as
        | DynamoDBBatchResponse
        | undefined;
      const failures = response?.batchItemFailures ?? [];
      if (failures.length === 0) return { ok: true };
      const identifiers = failures.map((failure) => failure.itemIdentifier ?? '');
      const indexes = identifiers.map((identifier) => records.findIndex((record) => record.dynamodb?.SequenceNumber === identifier));
      // As with Lambda, an identifier that names no record of the batch fails the whole batch.
      if (indexes.some((index) => index < 0)) return { ok: false, from: 0, threw: false };
      // Lambda goes on from the failed record with the lowest sequence number.
      const first = [...identifiers].sort(compareSequence)[0];
      return { ok: false, from: records.findIndex((record) => record.dynamodb?.SequenceNumber === first), threw: false };
    } catch (error) {
      log(`${worker.operation} failed; its batch of ${records.length} stream record(s) will be retried`, error);
      return { ok: false, from: 0, threw: true };
    }
  }

  /** Hands a batch on until it succeeds or its retries are spent (then describes it in the on-failure queue). */
  async function deliver(worker: PolledStreamWorker, shardId: string, records: DynamoDBRecord[], retry: number): Promise<void> {
    const outcome = await invoke(worker, records);
    if (outcome.ok) return;
    const remaining = records.slice(outcome.from);
    if (retry >= worker.retryAttempts || stopping.signal.aborted) {
      await describeFailure(worker, shardId, remaining, retry + 1);
      return;
    }
    await sleep(retryDelay(retry), undefined, { signal: stopping.signal }).catch(() => undefined);
    if (outcome.threw && remaining.length > 1) {
      const half = Math.ceil(remaining.length / 2);
      await deliver(worker, shardId, remaining.slice(0, half), retry + 1);
      await deliver(worker, shardId, remaining.slice(half), retry + 1);
      return;
    }
    await deliver(worker, shardId, remaining, retry + 1);
  }

  async function handOn(worker: PolledStreamWorker, shardId: string, records: DynamoDBRecord[]): Promise<void> {
    activity.running += 1;
    try {
      await deliver(worker, shardId, records, 0);
    } finally {
      activity.running -= 1;
    }
  }

  /** What Lambda's event source sends to an on-failure destination: the batch, by its shard and sequence numbers. */
  async function describeFailure(worker: PolledStreamWorker, shardId: string, records: DynamoDBRecord[], invocations: number) {
    const arrival = (record: DynamoDBRecord | undefined) =>
      new Date((record?.dynamodb?.ApproximateCreationDateTime ?? Date.now() / 1000) * 1000).toISOString();
    const description = {
      requestContext: {
        requestId: randomUUID(),
        functionArn: `arn:aws:lambda:${options.region}:123456789012:function:${worker.operation}`,
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: invocations,
      },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      version: '1.0',
      timestamp: new Date().toISOString(),
      DDBStreamBatchInfo: {
        shardId,
        startSequenceNumber: records[0]?.dynamodb?.SequenceNumber,
        endSequenceNumber: records.at(-1)?.dynamodb?.SequenceNumber,
        approximateArrivalOfFirstRecord: arrival(records[0]),
        approximateArrivalOfLastRecord: arrival(records.at(-1)),
        batchSize: records.length,
        streamArn,
      },
    };
    log(
      `${worker.operation} gave up on ${records.length} stream record(s) after ${invocations} invocation(s); described in its on-failure queue`,
    );
    const queueUrl = options.failureQueueUrls[worker.operation];
    if (!queueUrl) throw new Error(`No on-failure queue for ${worker.operation}`);
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(description) }));
  }

  const rounds = options.workers.map(consumer);

  async function loop(): Promise<void> {
    while (!stopping.signal.aborted) {
      roundsStarted += 1;
      wanted = false;
      const startedAt = Date.now();
      let again = false;
      try {
        for (const round of rounds) if (await round()) again = true;
        roundsDone = roundsStarted;
        // A round that left pages to read (a full page, a shard ended) has not caught up yet: the next one, at once, may.
        for (const waiter of again ? [] : waiters.filter((candidate) => candidate.round <= roundsDone)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      } catch (error) {
        if (stopping.signal.aborted) break;
        log('Reading the table stream failed', error);
        await sleep(1000, undefined, { signal: stopping.signal }).catch(() => undefined);
        continue;
      }
      if (again || wanted) continue;
      await new Promise<void>((resolveWait) => {
        const timer = setTimeout(done, Math.max(0, startedAt + pollInterval - Date.now()));
        function done() {
          clearTimeout(timer);
          stopping.signal.removeEventListener('abort', done);
          resolveWait();
        }
        wake = done;
        stopping.signal.addEventListener('abort', done, { once: true });
      });
      wake = () => {};
    }
  }

  const running = loop();

  return {
    activity: () => ({ ...activity }),
    caughtUp() {
      if (stopping.signal.aborted) return Promise.resolve();
      const round = roundsStarted + 1;
      const reached = new Promise<void>((resolve) => waiters.push({ round, resolve }));
      wanted = true;
      wake();
      return reached;
    },
    async stop() {
      stopping.abort();
      await running;
      for (const waiter of waiters.splice(0)) waiter.resolve();
      dynamodb.destroy();
      streams.destroy();
      sqs.destroy();
    },
  };
}
