/**
 * The local stack itself: the HTTP adapter and router (against fabricated routes and
 * handlers), the queue poller (against a fabricated worker), and the emulators the run started.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalHttpServer, startHttpServer } from '#dev/local/http-adapter.ts';
import { DUE_SOON_SECONDS, type IdleReport, queueStatesOverApi, waitUntilIdle } from '#dev/local/idle.ts';
import { type PolledWorker, startPoller } from '#dev/local/poller.ts';
import { REPOSITORY_ROOT } from '#dev/local/stack.ts';
import { ensureTable } from '#dev/local/table-setup.ts';
import { LAMBDA_RESPONSE_BYTES } from '#shared/http/answer-size.ts';
import { queues } from '#shared/queues.ts';
import { tableDefinition } from '#shared/store/table.ts';
import { recordedInvocations, releaseHeld, runningInvocations } from '../support/fixtures/queue-handler.ts';
import { PATIENCE_MS, until } from '../support/patience.ts';
import { api, stack } from '../support/stack.ts';

const FIXTURES = 'test/support/fixtures';

const fabricatedRoutes = [
  // Listed before the literal route on purpose: specificity, not order, decides.
  { operation: 'things.retrieve', method: 'GET', path: '/v1/things/{id}', handler: { module: `${FIXTURES}/echo-handler.ts` } },
  { operation: 'things.special', method: 'GET', path: '/v1/things/special', handler: { module: `${FIXTURES}/echo-handler.ts` } },
  { operation: 'things.update', method: 'PATCH', path: '/v1/things/{id}', handler: { module: `${FIXTURES}/echo-handler.ts` } },
  {
    operation: 'parts.retrieve',
    method: 'GET',
    path: '/v1/things/{thing}/parts/{part}',
    handler: { module: `${FIXTURES}/echo-handler.ts` },
  },
  { operation: 'things.upload', method: 'POST', path: '/v1/uploads', handler: { module: `${FIXTURES}/echo-handler.ts` } },
  { operation: 'things.download', method: 'GET', path: '/v1/download', handler: { module: `${FIXTURES}/binary-handler.ts` } },
  { operation: 'things.crash', method: 'GET', path: '/v1/crash', handler: { module: `${FIXTURES}/failing-handler.ts` } },
  { operation: 'things.sized', method: 'GET', path: '/v1/sized', handler: { module: `${FIXTURES}/sized-handler.ts` } },
];
const fabricatedFallback = { operation: 'notFound', handler: { module: `${FIXTURES}/echo-handler.ts` } };

interface Echo {
  event: APIGatewayProxyEventV2;
  context: { functionName: string; remainingMs: number };
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** node:http rather than fetch: fetch merges repeated headers before sending them. */
function send(base: string, method: string, path: string, headers: OutgoingHttpHeaders = {}, body?: Buffer | string): Promise<RawResponse> {
  return new Promise((resolveResponse, reject) => {
    const request = httpRequest(`${base}${path}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolveResponse({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    });
    request.on('error', reject);
    request.end(body);
  });
}

describe('HTTP adapter', () => {
  let server: LocalHttpServer;
  const echo = async (method: string, path: string, headers?: OutgoingHttpHeaders, body?: Buffer | string) => {
    const response = await send(server.url, method, path, headers, body);
    return { response, echo: JSON.parse(response.body.toString()) as Echo };
  };

  beforeAll(async () => {
    server = await startHttpServer({ routes: fabricatedRoutes, fallback: fabricatedFallback, root: REPOSITORY_ROOT, log: () => undefined });
  });
  afterAll(() => server.stop());

  it('prefers a literal segment over a parameter', async () => {
    expect((await echo('GET', '/v1/things/special')).echo.event.routeKey).toBe('GET /v1/things/special');
    const { echo: other } = await echo('GET', '/v1/things/other');
    expect(other.event.routeKey).toBe('GET /v1/things/{id}');
    expect(other.event.pathParameters).toEqual({ id: 'other' });
    expect(other.context.functionName).toBe('things.retrieve');
  });

  it('matches the method as well as the path', async () => {
    expect((await echo('PATCH', '/v1/things/special')).echo.event.routeKey).toBe('PATCH /v1/things/{id}');
    const { echo: deleted } = await echo('DELETE', '/v1/things/1');
    expect(deleted.event.routeKey).toBe('$default');
    expect(deleted.context.functionName).toBe('notFound');
  });

  it('sends every unmatched request to the fallback', async () => {
    for (const path of ['/', '/v1/nothing', '/v1/things/1/', '/v1/things//parts/2', '/v1/things/1/parts']) {
      const { echo: unmatched } = await echo('GET', path);
      expect(unmatched.event.routeKey, path).toBe('$default');
      expect(unmatched.event.requestContext.routeKey).toBe('$default');
      expect(unmatched.event.pathParameters).toBeUndefined();
      expect(unmatched.event.rawPath).toBe(path);
    }
  });

  it('decodes path parameters and keeps the raw path', async () => {
    const { echo: decoded } = await echo('GET', '/v1/things/a%20b%2Fc/parts/%C3%A9t%C3%A9');
    expect(decoded.event.pathParameters).toEqual({ thing: 'a b/c', part: 'été' });
    expect(decoded.event.rawPath).toBe('/v1/things/a%20b%2Fc/parts/%C3%A9t%C3%A9');
    expect(decoded.event.requestContext.http.path).toBe(decoded.event.rawPath);
  });

  it('passes the query string as API Gateway does', async () => {
    const { echo: queried } = await echo('GET', '/v1/things/1?page%5Bsize%5D=2&tag=a&tag=b&empty&q=x%20y+z');
    expect(queried.event.rawQueryString).toBe('page%5Bsize%5D=2&tag=a&tag=b&empty&q=x%20y+z');
    expect(queried.event.queryStringParameters).toEqual({ 'page[size]': '2', tag: 'a,b', empty: '', q: 'x y+z' });

    const { echo: plain } = await echo('GET', '/v1/things/1');
    expect(plain.event.rawQueryString).toBe('');
    expect(plain.event.queryStringParameters).toBeUndefined();
  });

  it('lower-cases header names, joins repeated headers with commas and lifts cookies out', async () => {
    const { echo: headed } = await echo('GET', '/v1/things/1', {
      'X-Multi': ['a', 'b'],
      'User-Agent': 'local-stack-test',
      Cookie: 'session=abc; theme=dark',
    });
    expect(headed.event.headers['x-multi']).toBe('a,b');
    expect(headed.event.headers['user-agent']).toBe('local-stack-test');
    expect(headed.event.headers.cookie).toBeUndefined();
    expect(headed.event.cookies).toEqual(['session=abc', 'theme=dark']);
    expect(headed.event.requestContext.http.userAgent).toBe('local-stack-test');
  });

  it('builds the v2.0 request context', async () => {
    const { response, echo: described } = await echo('GET', '/v1/things/1');
    const { event } = described;
    expect(event.version).toBe('2.0');
    expect(event.isBase64Encoded).toBe(false);
    expect(event.body).toBeUndefined();
    expect(event.requestContext).toMatchObject({
      stage: '$default',
      routeKey: 'GET /v1/things/{id}',
      http: { method: 'GET', path: '/v1/things/1', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1' },
    });
    expect(event.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers['apigw-requestid']).toBe(event.requestContext.requestId);
    expect(Math.abs(event.requestContext.timeEpoch - Date.now())).toBeLessThan(10_000);
    expect(event.requestContext.time).toMatch(/^\d{2}\/\w{3}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
    expect(described.context.remainingMs).toBeGreaterThan(25_000);
  });

  it('passes text bodies as text and other bodies base64-encoded', async () => {
    const json = JSON.stringify({ data: { type: 'things', attributes: { name: 'é' } } });
    const { echo: text } = await echo('POST', '/v1/uploads', { 'content-type': 'application/vnd.api+json' }, json);
    expect(text.event.isBase64Encoded).toBe(false);
    expect(text.event.body).toBe(json);

    const bytes = Buffer.from([0, 1, 2, 253, 254, 255]);
    const { echo: binary } = await echo('POST', '/v1/uploads', { 'content-type': 'application/octet-stream' }, bytes);
    expect(binary.event.isBase64Encoded).toBe(true);
    expect(Buffer.from(binary.event.body!, 'base64').equals(bytes)).toBe(true);
  });

  it('writes the structured result back: headers, cookies, base64 bodies', async () => {
    const { response } = await echo('GET', '/v1/things/1');
    expect(response.status).toBe(200);
    expect(response.headers['x-operation']).toBe('things.retrieve');
    expect(response.headers['set-cookie']).toEqual(['first=1; Path=/', 'second=2; Path=/']);

    const download = await send(server.url, 'GET', '/v1/download');
    expect(download.headers['content-type']).toBe('application/octet-stream');
    expect([...download.body]).toEqual([0, 255, 1, 254]);
  });

  it('answers 500 in the API error format when a handler throws', async () => {
    const response = await send(server.url, 'GET', '/v1/crash');
    expect(response.status).toBe(500);
    const document = JSON.parse(response.body.toString());
    expect(document).toEqual({
      meta: { id: response.headers['apigw-requestid'] },
      errors: [{ title: 'Internal server error', detail: expect.any(String), code: 'INTERNAL_ERROR' }],
    });
    expect(document.errors[0].detail).not.toContain('fixture failure');
  });

  it("answers a result up to Lambda's limit, and 500 past it as a deployment would", async () => {
    const largest = await send(server.url, 'GET', `/v1/sized?bytes=${LAMBDA_RESPONSE_BYTES}`);
    expect(largest.status).toBe(200);
    expect(largest.body.length).toBeGreaterThan(LAMBDA_RESPONSE_BYTES - 100);
    const over = await send(server.url, 'GET', `/v1/sized?bytes=${LAMBDA_RESPONSE_BYTES + 1}`);
    expect(over.status).toBe(500);
    expect(JSON.parse(over.body.toString())).toMatchObject({ errors: [{ code: 'INTERNAL_ERROR' }] });
  });
});

describe('the running stack', () => {
  it('answers an unknown path through the fallback route', async () => {
    const response = await api(`/no-such-path-${randomUUID()}`);
    const document = (await response.json()) as { errors?: unknown[] };
    // 404 once the fallback handler exists; the adapter's own 500 while it cannot be loaded.
    expect([404, 500]).toContain(response.status);
    expect(document.errors?.length).toBeGreaterThan(0);
  });

  it('has the table with every index, time to live and its stream of old and new images', async () => {
    const client = new DynamoDBClient({});
    const { Table } = await client.send(new DescribeTableCommand({ TableName: stack().tableName }));
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(Table?.KeySchema).toEqual([
      { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
      { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
    ]);
    const indexes = (Table?.GlobalSecondaryIndexes ?? []).map((index) => ({
      name: index.IndexName,
      partitionKey: index.KeySchema?.find((key) => key.KeyType === 'HASH')?.AttributeName,
      sortKey: index.KeySchema?.find((key) => key.KeyType === 'RANGE')?.AttributeName,
      projection: index.Projection?.ProjectionType,
      ...(index.Projection?.NonKeyAttributes && { include: index.Projection.NonKeyAttributes }),
    }));
    expect(indexes.sort((a, b) => a.name!.localeCompare(b.name!))).toEqual(
      [...tableDefinition.indexes].sort((a, b) => a.name.localeCompare(b.name)),
    );
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: stack().tableName }));
    expect(ttl.TimeToLiveDescription).toMatchObject({ TimeToLiveStatus: 'ENABLED', AttributeName: tableDefinition.ttlAttribute });
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    client.destroy();
  });

  it('gives a table kept from before the stream its stream, data and all', async () => {
    const client = new DynamoDBClient({});
    const tableName = `kept-${randomUUID().slice(0, 8)}`;
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: tableDefinition.partitionKey, AttributeType: 'S' },
          { AttributeName: tableDefinition.sortKey, AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
          { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
        ],
      }),
    );
    const key = { [tableDefinition.partitionKey]: { S: 'kept' }, [tableDefinition.sortKey]: { S: '#' } };
    await client.send(new PutItemCommand({ TableName: tableName, Item: key }));
    await ensureTable(stack().dynamodb, tableName);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect((await client.send(new GetItemCommand({ TableName: tableName, Key: key }))).Item).toEqual(key);
    client.destroy();
  });

  it('has every queue with its dead-letter queue', async () => {
    const client = new SQSClient({});
    for (const [name, definition] of Object.entries(queues)) {
      const queueUrl = stack().queueUrls[name as keyof typeof queues];
      expect(process.env[definition.urlVariable]).toBe(queueUrl);
      const { Attributes } = await client.send(
        // local-aws-sqs reads `AttributeNames`.
        new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['RedrivePolicy', 'VisibilityTimeout'] }),
      );
      expect(JSON.parse(Attributes?.RedrivePolicy ?? '{}')).toEqual({
        maxReceiveCount: definition.maxReceiveCount,
        deadLetterTargetArn: expect.stringMatching(new RegExp(`:licensing-${name}-dlq$`)),
      });
      expect(Number(Attributes?.VisibilityTimeout)).toBe(definition.visibilityTimeoutSeconds);
    }
    client.destroy();
  });

  it('keeps every mail sent through SES and shows it at /store', async () => {
    const subject = `Reset your password ${randomUUID()}`;
    const client = new SESClient({});
    await client.send(
      new SendEmailCommand({
        Source: 'no-reply@licensing.local',
        Destination: { ToAddresses: ['someone@example.com'] },
        Message: { Subject: { Data: subject }, Body: { Text: { Data: 'Follow the link.' } } },
      }),
    );
    client.destroy();
    const store = (await (await fetch(`${stack().ses}/store`)).json()) as {
      emails: Array<{ subject: string; destination: { to: string[] } }>;
    };
    const mail = store.emails.find((email) => email.subject === subject);
    expect(mail?.destination.to).toEqual(['someone@example.com']);
  });
});

describe('queue poller', () => {
  const sqs = new SQSClient({});
  afterAll(() => sqs.destroy());

  /** A fresh queue and DLQ, and a poller feeding the fixture worker from it. */
  async function pollFreshQueue(
    maxReceiveCount: number,
    options: { batchSize?: number; maxConcurrency?: number; visibilitySeconds?: number } = {},
  ) {
    const name = `test-${randomUUID().slice(0, 8)}`;
    const deadLetterUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }))).QueueUrl!;
    const queueUrl = (
      await sqs.send(
        new CreateQueueCommand({
          QueueName: name,
          Attributes: {
            RedrivePolicy: JSON.stringify({
              maxReceiveCount,
              deadLetterTargetArn: `arn:aws:sqs:${stack().region}:123456789012:${name}-dlq`,
            }),
          },
        }),
      )
    ).QueueUrl!;
    const worker: PolledWorker = {
      operation: 'fixture.work',
      queue: 'fixture',
      handler: { module: `${FIXTURES}/queue-handler.ts` },
      batchSize: options.batchSize ?? 5,
      maxConcurrency: options.maxConcurrency,
    };
    const poller = startPoller({
      workers: [worker],
      queueUrls: { fixture: queueUrl },
      timeoutSeconds: { fixture: 20 },
      root: REPOSITORY_ROOT,
      sqsEndpoint: stack().sqs,
      region: stack().region,
      retryVisibilitySeconds: options.visibilitySeconds ?? 1,
      waitTimeSeconds: 1,
      log: () => undefined,
    });
    /** Resolves once the queue is empty and its poller runs no batch (or, past the patience, not idle). */
    const idle = () =>
      waitUntilIdle({ queues: queueStatesOverApi(sqs, { fixture: queueUrl }), activity: () => poller.activity() }, PATIENCE_MS);
    return { queueUrl, deadLetterUrl, idle, activity: () => poller.activity(), stop: () => poller.stop() };
  }

  const message = (test: string, outcome: 'ok' | 'fail' | 'throw' | 'hold') => JSON.stringify({ test, outcome });
  const invocationsFor = (test: string) =>
    recordedInvocations().filter((call) => call.event.Records.some((record) => JSON.parse(record.body).test === test));
  const recordsFor = (test: string) =>
    invocationsFor(test).flatMap((call) => call.event.Records.filter((record) => JSON.parse(record.body).test === test));
  const sleep = (ms: number) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

  it('delivers a message to its worker, shaped as Lambda does, and deletes it', async () => {
    const test = randomUUID();
    const queue = await pollFreshQueue(3);
    try {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queue.queueUrl,
          MessageBody: message(test, 'ok'),
          MessageAttributes: { kind: { DataType: 'String', StringValue: 'ping' } },
        }),
      );
      await expect.poll(() => invocationsFor(test).length, { timeout: PATIENCE_MS, interval: 20 }).toBe(1);

      const [call] = invocationsFor(test);
      const [record] = call!.event.Records;
      expect(call!.functionName).toBe('fixture.work');
      expect(call!.remainingMs).toBeGreaterThan(15_000);
      expect(record).toMatchObject({
        body: message(test, 'ok'),
        eventSource: 'aws:sqs',
        awsRegion: stack().region,
        messageAttributes: { kind: { dataType: 'String', stringValue: 'ping', stringListValues: [], binaryListValues: [] } },
        attributes: { ApproximateReceiveCount: '1' },
      });
      expect(record!.eventSourceARN).toBe(`arn:aws:sqs:${stack().region}:123456789012:${queue.queueUrl.split('/').pop()}`);
      expect(record!.messageId).toBeTruthy();
      expect(record!.receiptHandle).toBeTruthy();
      expect(record!.md5OfBody).toMatch(/^[0-9a-f]{32}$/);
      expect(Number(record!.attributes.SentTimestamp)).toBeGreaterThan(0);
      expect(Number(record!.attributes.ApproximateFirstReceiveTimestamp)).toBeGreaterThan(0);

      // Deleted: the queue empties with no second delivery (a message left behind would come
      // back after the retry visibility, and keep the queue from being idle until then).
      expect((await queue.idle()).idle).toBe(true);
      expect(invocationsFor(test)).toHaveLength(1);
    } finally {
      await queue.stop();
    }
  });

  it('redelivers only the messages a batch reports as failed', async () => {
    const test = randomUUID();
    const queue = await pollFreshQueue(5);
    try {
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queue.queueUrl,
          Entries: [
            { Id: 'ok', MessageBody: message(test, 'ok') },
            { Id: 'fail', MessageBody: message(test, 'fail') },
          ],
        }),
      );
      await expect
        .poll(() => recordsFor(test).filter((record) => record.body.includes('"fail"')).length, { timeout: PATIENCE_MS })
        .toBeGreaterThanOrEqual(2);
      const first = invocationsFor(test)[0]!;
      expect(first.event.Records).toHaveLength(2);
      expect(recordsFor(test).filter((record) => record.body.includes('"ok"'))).toHaveLength(1);
      const retried = recordsFor(test).filter((record) => record.body.includes('"fail"'));
      expect(retried.map((record) => record.attributes.ApproximateReceiveCount).slice(0, 2)).toEqual(['1', '2']);
    } finally {
      await queue.stop();
    }
  });

  it('moves a message that keeps failing to the dead-letter queue after maxReceiveCount', async () => {
    const test = randomUUID();
    const maxReceiveCount = 2;
    const queue = await pollFreshQueue(maxReceiveCount);
    try {
      await sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: message(test, 'throw') }));
      const deadLetters = await until(
        async () => {
          const received = await sqs.send(
            new ReceiveMessageCommand({ QueueUrl: queue.deadLetterUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1 }),
          );
          return received.Messages?.length ? received.Messages : undefined;
        },
        () => 'the message in the dead-letter queue',
        0,
      );
      expect(deadLetters.map((dead) => dead.Body)).toEqual([message(test, 'throw')]);
      expect(invocationsFor(test)).toHaveLength(maxReceiveCount);
    } finally {
      await queue.stop();
    }
  });

  it('is idle only once no message is queued or in flight and no batch runs', async () => {
    const test = randomUUID();
    const queue = await pollFreshQueue(5, { batchSize: 1, visibilitySeconds: 30 });
    try {
      await sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: message(test, 'hold') }));
      await expect.poll(() => runningInvocations(test).now, { timeout: PATIENCE_MS, interval: 20 }).toBe(1);
      // Each alone keeps it busy: the message in flight, and the batch running.
      const inFlight = await waitUntilIdle(
        { queues: queueStatesOverApi(sqs, { fixture: queue.queueUrl }), activity: () => ({ running: 0, started: 0 }) },
        300,
      );
      expect(inFlight).toMatchObject({ idle: false, queues: { fixture: { inFlight: 1 } } });
      const running = await waitUntilIdle({ queues: async () => ({}), activity: queue.activity }, 300);
      expect(running).toMatchObject({ idle: false, batchesRunning: 1 });
      releaseHeld(test);
      const report = await queue.idle();
      expect(report).toMatchObject({ idle: true, batchesRunning: 0, queues: { fixture: { waiting: 0, inFlight: 0, dueSoon: 0 } } });
      expect(invocationsFor(test)).toHaveLength(1);
    } finally {
      releaseHeld(test);
      await queue.stop();
    }
  });

  it('keeps up to maxConcurrency batches in flight at once, never more', async () => {
    const test = randomUUID();
    const queue = await pollFreshQueue(5, { batchSize: 1, maxConcurrency: 3, visibilitySeconds: 30 });
    try {
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queue.queueUrl,
          Entries: Array.from({ length: 6 }, (_, i) => ({ Id: String(i), MessageBody: message(test, 'hold') })),
        }),
      );
      await expect.poll(() => runningInvocations(test).now, { timeout: PATIENCE_MS, interval: 20 }).toBe(3);
      // While the three are held, the other slots have nothing to give out more batches with.
      await sleep(500);
      expect(runningInvocations(test).most).toBe(3);
      releaseHeld(test);
      await expect.poll(() => recordsFor(test).length, { timeout: PATIENCE_MS, interval: 20 }).toBe(6);
      expect(runningInvocations(test).most).toBe(3);
      expect(new Set(recordsFor(test).map((record) => record.messageId)).size).toBe(6);
    } finally {
      releaseHeld(test);
      await queue.stop();
    }
  });

  it('does not hand a message out again while its batch runs past the visibility timeout', async () => {
    const test = randomUUID();
    const queue = await pollFreshQueue(2, { batchSize: 1, maxConcurrency: 3, visibilitySeconds: 1 });
    try {
      await sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: message(test, 'hold') }));
      await expect.poll(() => runningInvocations(test).now, { timeout: PATIENCE_MS, interval: 20 }).toBe(1);
      // Past the visibility timeout, and past it again: on AWS, where the timeout outlasts the
      // function, no other invocation would get the message, nor would it reach the DLQ.
      await sleep(2500);
      releaseHeld(test);
      await expect.poll(() => runningInvocations(test).now, { timeout: PATIENCE_MS, interval: 20 }).toBe(0);
      expect((await queue.idle()).idle).toBe(true);
      expect(invocationsFor(test)).toHaveLength(1);
      const dead = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.deadLetterUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1 }));
      expect(dead.Messages ?? []).toEqual([]);
      // The worker's other slots receive again.
      const next = randomUUID();
      await sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: message(next, 'ok') }));
      await expect.poll(() => invocationsFor(next).length, { timeout: PATIENCE_MS, interval: 20 }).toBe(1);
    } finally {
      releaseHeld(test);
      await queue.stop();
    }
  });
});

describe('GET /_local/idle', () => {
  const sqs = new SQSClient({});
  afterAll(() => sqs.destroy());
  const idle = async (timeoutSeconds: number) => {
    const response = await api(`/_local/idle?timeout=${timeoutSeconds}`);
    return { status: response.status, report: (await response.json()) as IdleReport };
  };
  /** A delivery message for an event that does not exist: the worker drops it, changing nothing. */
  const stray = (delaySeconds: number) =>
    sqs.send(
      new SendMessageCommand({
        QueueUrl: stack().queueUrls.webhooks,
        MessageBody: JSON.stringify({ accountId: randomUUID(), webhookEventId: randomUUID(), attempt: 1 }),
        DelaySeconds: delaySeconds,
      }),
    );

  it('waits for a message delayed to within a few seconds, and answers 503 with the report when the time runs out first', async () => {
    // As late as still counts as due soon: the look below must come before it is due, on a busy machine too.
    const due = Date.now() + (DUE_SOON_SECONDS - 1) * 1000;
    await stray(DUE_SOON_SECONDS - 1);
    const early = await idle(0);
    expect(early.status).toBe(503);
    expect(early.report.idle).toBe(false);
    expect(early.report.queues.webhooks!.dueSoon).toBeGreaterThanOrEqual(1);
    // Other files share the stack: what they queue may keep it busy a while, so the wait's ceiling is the patience.
    const { status, report } = await idle(PATIENCE_MS / 1000);
    expect(status, JSON.stringify(report)).toBe(200);
    expect(report).toMatchObject({ idle: true, batchesRunning: 0, queues: { webhooks: { waiting: 0, inFlight: 0, dueSoon: 0 } } });
    // Not before the message was due, and so handled.
    expect(Date.now()).toBeGreaterThanOrEqual(due);
  });

  it('does not wait for a message delayed further, and reports it', async () => {
    // Due only after the longest the wait below may take: still later when the stack is idle.
    await stray(PATIENCE_MS / 1000 + 30);
    const { status, report } = await idle(PATIENCE_MS / 1000);
    expect(status, JSON.stringify(report)).toBe(200);
    expect(report.queues.webhooks!.later).toBeGreaterThanOrEqual(1);
  });

  it('is no route of the API: /v1/_local/idle is not found, and only GET is answered', async () => {
    expect((await api('/v1/_local/idle')).status).toBe(404);
    expect((await api('/_local/idle', { method: 'POST' })).status).toBe(404);
    expect((await api('/_local/nothing')).status).toBe(404);
  });
});
