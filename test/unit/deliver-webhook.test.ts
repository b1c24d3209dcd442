/**
 * The webhook worker's failure paths against mocked DynamoDB and SQS clients and a stubbed
 * fetch (no local stack): the idempotency record (Powertools, on the service table) is taken
 * before the POST, makes a duplicate message a no-op, and is released when processing throws;
 * retries are scheduled per WEBHOOK_RETRY_DELAYS, delays over 15 minutes as hops; refused
 * targets never see a request; poison messages fail their batch item.
 */
import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler } from '#functions/workers/deliver-webhook.ts';
import { urlRules } from '#shared/domain/webhook-endpoints/endpoint.ts';
import { attempt, processDelivery, retryDelaySeconds, RESPONSE_BODY_MAX } from '#shared/events/deliver.ts';
import { parseDeliveryMessage, PoisonMessage, scheduleAttempt, type DeliveryMessage } from '#shared/events/messages.ts';
import { checkTarget, isRefusedAddress } from '#shared/events/targets.ts';
import { IDEMPOTENCY_PARTITION } from '#shared/store/keys.ts';

const ACCOUNT = '11111111-1111-4111-8111-111111111111';
const EVENT = '22222222-2222-4222-8222-222222222222';
const ENDPOINT = '33333333-3333-4333-8333-333333333333';
const EVENT_PK = `A#${ACCOUNT}#WEBHOOK_EVENT#${EVENT}`;
const ENDPOINT_PK = `A#${ACCOUNT}#WEBHOOK_ENDPOINT#${ENDPOINT}`;
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const TOKEN = 'a'.repeat(64);

const saved = { delays: process.env.WEBHOOK_RETRY_DELAYS, allow: process.env.ALLOW_PRIVATE_WEBHOOK_TARGETS };
afterAll(() => {
  process.env.WEBHOOK_RETRY_DELAYS = saved.delays;
  process.env.ALLOW_PRIVATE_WEBHOOK_TARGETS = saved.allow;
  vi.unstubAllGlobals();
});

const documents = mockClient(DynamoDBDocumentClient);
const dynamodb = mockClient(DynamoDBClient);
const sqs = mockClient(SQSClient);

interface Model {
  event: Record<string, unknown> | undefined;
  endpoint: Record<string, unknown> | undefined;
  /** Powertools' idempotency items, by SK. */
  idempotency: Map<string, Record<string, any>>;
  transactions: any[][];
  /** Throw on the next TransactWrite, once. */
  failNextTransaction?: Error;
  sent: { body: any; delay: number | undefined }[];
  posts: { url: string; init: RequestInit }[];
}

let model: Model;
let answer: () => Promise<Response>;

const context = { getRemainingTimeInMillis: () => 20_000, functionName: 'deliver', awsRequestId: 'r' } as unknown as Context;
const message: DeliveryMessage = { accountId: ACCOUNT, webhookEventId: EVENT, attempt: 1 };

function install() {
  documents.reset();
  dynamodb.reset();
  sqs.reset();
  documents.on(GetCommand).callsFake((input) => {
    if (input.Key.PK === EVENT_PK) return { Item: model.event && { ...model.event } };
    if (input.Key.PK === ENDPOINT_PK) return { Item: model.endpoint && { ...model.endpoint } };
    return {};
  });
  documents.on(QueryCommand).resolves({ Items: [] });
  documents.on(TransactWriteCommand).callsFake((input) => {
    if (model.failNextTransaction) {
      const error = model.failNextTransaction;
      model.failNextTransaction = undefined;
      throw error;
    }
    model.transactions.push(input.TransactItems);
    for (const item of input.TransactItems) {
      if (item.Update?.Key.PK === EVENT_PK) {
        const names = item.Update.ExpressionAttributeNames;
        const values = item.Update.ExpressionAttributeValues ?? {};
        for (const [alias, name] of Object.entries(names)) {
          const value = values[`:v${alias.slice(2)}`];
          if (value === undefined) delete model.event![name as string];
          else model.event![name as string] = value;
        }
      }
    }
    return {};
  });
  // Powertools' persistence layer, evaluated as DynamoDB would.
  dynamodb.on(PutItemCommand).callsFake((input) => {
    const item = unmarshall(input.Item);
    expect(input.TableName).toBe(process.env.TABLE_NAME);
    expect(item.PK).toBe(IDEMPOTENCY_PARTITION);
    const existing = model.idempotency.get(item.SK);
    const now = Date.now();
    const free = !existing || existing.expiresAt < now / 1000 || (existing.status === 'INPROGRESS' && existing.in_progress_expiration < now);
    if (!free) throw new ConditionalCheckFailedException({ message: 'exists', $metadata: {}, Item: marshall(existing) });
    model.idempotency.set(item.SK, item);
    return {};
  });
  dynamodb.on(GetItemCommand).callsFake((input) => {
    const key = unmarshall(input.Key!);
    const item = model.idempotency.get(key.SK);
    return { Item: item && marshall(item) };
  });
  dynamodb.on(UpdateItemCommand).callsFake((input) => {
    const key = unmarshall(input.Key!);
    const values = unmarshall(input.ExpressionAttributeValues!);
    const item = model.idempotency.get(key.SK)!;
    item.status = values[':status'];
    item.expiresAt = values[':expiry'];
    if (values[':response_data'] !== undefined) item.data = values[':response_data'];
    return {};
  });
  dynamodb.on(DeleteItemCommand).callsFake((input) => {
    model.idempotency.delete(unmarshall(input.Key!).SK);
    return {};
  });
  sqs.on(SendMessageCommand).callsFake((input) => {
    model.sent.push({ body: JSON.parse(input.MessageBody!), delay: input.DelaySeconds });
    return { MessageId: String(model.sent.length) };
  });
  sqs.on(SendMessageBatchCommand).callsFake((input) => {
    for (const entry of input.Entries!) model.sent.push({ body: JSON.parse(entry.MessageBody!), delay: entry.DelaySeconds });
    return { Successful: [], Failed: [] };
  });
}

beforeEach(() => {
  process.env.WEBHOOK_RETRY_DELAYS = '30,120';
  process.env.ALLOW_PRIVATE_WEBHOOK_TARGETS = 'true';
  model = {
    event: {
      PK: EVENT_PK, SK: '#', type: 'webhook-events', id: EVENT, accountId: ACCOUNT, environmentId: null,
      created: '2024-01-01T00:00:00.000Z', updated: '2024-01-01T00:00:00.000Z', endpointId: ENDPOINT,
      endpoint: 'http://127.0.0.1:9/hook', payload: '{"data":{"type":"users","id":"x"}}', event: 'user.created',
      status: 'DELIVERING', lastResponseCode: null, lastResponseBody: null, idempotencyToken: TOKEN,
    },
    endpoint: {
      PK: ENDPOINT_PK, SK: '#', type: 'webhook-endpoints', id: ENDPOINT, accountId: ACCOUNT, environmentId: null,
      created: '2024-01-01T00:00:00.000Z', updated: '2024-01-01T00:00:00.000Z', url: 'http://127.0.0.1:9/hook',
      subscriptions: ['*'], enabled: true, signingSecret: SECRET,
    },
    idempotency: new Map(),
    transactions: [],
    sent: [],
    posts: [],
  };
  answer = async () => new Response('ok', { status: 200 });
  vi.stubGlobal('fetch', async (url: URL | string, init: RequestInit) => {
    model.posts.push({ url: String(url), init });
    return answer();
  });
  install();
});

const eventUpdates = () =>
  model.transactions.flat().filter((op) => op.Update?.Key.PK === EVENT_PK).map((op) => {
    const names = op.Update.ExpressionAttributeNames as Record<string, string>;
    const values = op.Update.ExpressionAttributeValues ?? {};
    return Object.fromEntries(Object.entries(names).map(([alias, name]) => [name, values[`:v${alias.slice(2)}`] ?? null]));
  });

describe('one attempt', () => {
  it('POSTs the event document signed the Standard Webhooks way and records DELIVERED', async () => {
    expect(await processDelivery(message, context)).toEqual({ status: 'DELIVERED' });
    expect(model.posts).toHaveLength(1);
    const { url, init } = model.posts[0]!;
    expect(url).toBe('http://127.0.0.1:9/hook');
    expect(init.redirect).toBe('manual');
    const headers = init.headers as Record<string, string>;
    expect(headers['webhook-id']).toBe(TOKEN);
    const verified = new Webhook(SECRET).verify(init.body as string, headers) as any;
    expect(verified.data).toMatchObject({ id: EVENT, type: 'webhook-events', meta: { idempotencyToken: TOKEN } });
    expect(eventUpdates()).toEqual([expect.objectContaining({ status: 'DELIVERED', lastResponseCode: 200, lastResponseBody: 'ok' })]);
    expect(model.sent).toEqual([]);
    // The idempotency record: completed, in the service table's own partition, kept ≥ 3 days.
    const [record] = [...model.idempotency.values()];
    expect(record).toMatchObject({ PK: IDEMPOTENCY_PARTITION, status: 'COMPLETED' });
    expect(record!.SK).toMatch(/^webhook-delivery#/);
    expect(record!.expiresAt - Date.now() / 1000).toBeGreaterThanOrEqual(3 * 86400);
  });

  it('the same message twice: one POST, the second answered from the idempotency record', async () => {
    answer = async () => new Response('nope', { status: 500 });
    expect(await processDelivery(message, context)).toEqual({ status: 'FAILING' });
    expect(await processDelivery(message, context)).toEqual({ status: 'FAILING' });
    expect(model.posts).toHaveLength(1);
    expect(model.sent).toHaveLength(1);
    // A different attempt of the same event is another key.
    await processDelivery({ ...message, attempt: 2 }, context);
    expect(model.posts).toHaveLength(2);
  });

  it('a duplicate arriving while the attempt is in flight fails (to come back later) without POSTing', async () => {
    let release!: () => void;
    answer = () => new Promise((resolve) => (release = () => resolve(new Response(null, { status: 204 }))));
    const first = processDelivery(message, context);
    await vi.waitFor(() => expect(model.posts).toHaveLength(1));
    await expect(processDelivery(message, context)).rejects.toThrow(/in progress/);
    release();
    await first;
    expect(model.posts).toHaveLength(1);
  });

  it('when processing throws after the POST, the idempotency record is released so the redelivered message runs', async () => {
    model.failNextTransaction = new Error('ProvisionedThroughputExceeded (simulated)');
    await expect(processDelivery(message, context)).rejects.toThrow(/simulated/);
    expect(model.idempotency.size).toBe(0);
    expect(dynamodb.commandCalls(DeleteItemCommand)).toHaveLength(1);
    // SQS delivers it again: it runs.
    expect(await processDelivery(message, context)).toEqual({ status: 'DELIVERED' });
    expect(model.posts).toHaveLength(2);
    expect([...model.idempotency.values()][0]!.status).toBe('COMPLETED');
  });

  it('when the POST throws (network error, timeout), the attempt fails: FAILING, no code, the next attempt scheduled', async () => {
    answer = async () => {
      throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    };
    expect(await processDelivery(message, context)).toEqual({ status: 'FAILING' });
    expect(eventUpdates()[0]).toMatchObject({ status: 'FAILING', lastResponseCode: null, lastResponseBody: 'The request failed: ECONNREFUSED' });
    expect(model.sent).toHaveLength(1);
    expect(model.sent[0]!.body).toEqual({ ...message, attempt: 2 });
    expect(model.sent[0]!.delay).toBeGreaterThanOrEqual(27);
    expect(model.sent[0]!.delay).toBeLessThanOrEqual(33);
  });

  it('when the next attempt cannot be queued, the message fails and the idempotency record is released', async () => {
    answer = async () => new Response('', { status: 502 });
    sqs.on(SendMessageCommand).rejects(new Error('SQS unavailable'));
    await expect(processDelivery(message, context)).rejects.toThrow(/SQS unavailable/);
    expect(model.idempotency.size).toBe(0);
  });

  it('keeps the first 2 KB of the answer', async () => {
    answer = async () => new Response('é'.repeat(10_000), { status: 500 });
    await processDelivery(message, context);
    expect(eventUpdates()[0]!.lastResponseBody).toBe('é'.repeat(RESPONSE_BODY_MAX));
  });

  it('after the last attempt: FAILED and nothing scheduled', async () => {
    answer = async () => new Response('', { status: 500 });
    expect(await processDelivery({ ...message, attempt: 3 }, context)).toEqual({ status: 'FAILED' });
    expect(model.sent).toEqual([]);
  });

  it('410 Gone: FAILED at once, and the endpoint disabled in the same transaction', async () => {
    answer = async () => new Response('gone', { status: 410 });
    expect(await processDelivery(message, context)).toEqual({ status: 'FAILED' });
    expect(model.sent).toEqual([]);
    const [tx] = model.transactions;
    const endpointUpdate = tx!.find((op) => op.Update?.Key.PK === ENDPOINT_PK);
    expect(Object.values(endpointUpdate.Update.ExpressionAttributeValues)).toContain(false);
  });

  it('an event already DELIVERED or FAILED, or gone, is acknowledged without a POST', async () => {
    model.event!.status = 'DELIVERED';
    expect(await attempt(message)).toEqual({ status: 'DELIVERED', skipped: true });
    model.event = undefined;
    expect(await attempt(message)).toEqual({ status: 'GONE', skipped: true });
    expect(model.posts).toEqual([]);
  });

  it('an endpoint deleted or disabled since: FAILED without a POST', async () => {
    model.endpoint!.enabled = false;
    expect(await attempt(message)).toEqual({ status: 'FAILED' });
    model.event!.status = 'DELIVERING';
    model.endpoint = undefined;
    expect(await attempt({ ...message, attempt: 2 })).toEqual({ status: 'FAILED' });
    expect(model.posts).toEqual([]);
    expect(eventUpdates().map((u) => u.lastResponseBody)).toEqual(['The webhook endpoint is disabled', 'The webhook endpoint no longer exists']);
  });
});

describe('scheduling', () => {
  it('the delay before each retry follows WEBHOOK_RETRY_DELAYS with ±10% jitter; none after the last', () => {
    expect(retryDelaySeconds(2, [30, 120], () => 0)).toBeCloseTo(27);
    expect(retryDelaySeconds(2, [30, 120], () => 1)).toBeCloseTo(33);
    expect(retryDelaySeconds(3, [30, 120], () => 0.5)).toBeCloseTo(120);
    expect(retryDelaySeconds(4, [30, 120])).toBeUndefined();
  });

  it('a delay over 15 minutes is sent as a hop carrying notBefore, delayed 900 s', async () => {
    const now = Date.parse('2024-01-01T00:00:00Z');
    await scheduleAttempt({ ...message, attempt: 5 }, 3 * 3600, now);
    expect(model.sent).toEqual([{ body: { ...message, attempt: 5, notBefore: now + 3 * 3600 * 1000 }, delay: 900 }]);
    model.sent = [];
    await scheduleAttempt({ ...message, attempt: 2 }, 120, now);
    expect(model.sent).toEqual([{ body: { ...message, attempt: 2 }, delay: 120 }]);
  });

  it('a hop that is not due goes back on the queue for at most 15 minutes, POSTing nothing; a due one runs', async () => {
    const hop = { ...message, attempt: 5, notBefore: Date.now() + 2 * 3600 * 1000 };
    expect(await processDelivery(hop, context)).toBe('HOP');
    expect(model.sent).toEqual([{ body: hop, delay: 900 }]);
    model.sent = [];
    const last = { ...hop, notBefore: Date.now() + 300_000 };
    expect(await processDelivery(last, context)).toBe('HOP');
    expect(model.sent[0]!.delay).toBe(300);
    expect(model.posts).toEqual([]);
    expect(model.idempotency.size).toBe(0);
    expect(await processDelivery({ ...hop, notBefore: Date.now() - 1 }, context)).toEqual({ status: 'DELIVERED' });
    expect(model.posts).toHaveLength(1);
  });
});

describe('refused targets', () => {
  it('classifies private, loopback, link-local, unique-local and unspecified addresses, IPv4-mapped included', () => {
    const refused = [
      '127.0.0.1', '127.8.9.10', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '0.0.0.0',
      '100.64.0.1', '224.0.0.1', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', '::ffff:127.0.0.1', '::ffff:10.1.2.3',
      '::ffff:a9fe:a9fe', '64:ff9b::7f00:1', '64:ff9b::127.0.0.1', 'not-an-ip',
      // IPv4 hidden in other IPv6 spellings: compatible, translated, local-use NAT64, 6to4 of a private address.
      '::7f00:1', '::127.0.0.1', '::ffff:0:7f00:1', '64:ff9b:1::808:808', '2002:7f00:1::', '2002:c0a8:101::1', '2001:db8::1',
    ];
    const allowed = [
      '8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808',
      '64:ff9b::8.8.8.8', '2002:808:808::1',
    ];
    for (const address of refused) expect(isRefusedAddress(address), address).toBe(true);
    for (const address of allowed) expect(isRefusedAddress(address), address).toBe(false);
  });

  it('refuses a host when any address it resolves to is private, and localhost names without resolving', async () => {
    const resolver = (addresses: string[]) => async () => addresses.map((address) => ({ address }));
    const url = new URL('https://hooks.vendor.test/in');
    expect(await checkTarget(url, false, resolver(['93.184.216.34']))).toEqual({ allowed: true });
    expect(await checkTarget(url, false, resolver(['93.184.216.34', '10.0.0.5']))).toMatchObject({ allowed: false, reason: expect.stringContaining('10.0.0.5') });
    expect(await checkTarget(url, false, resolver(['::ffff:169.254.169.254']))).toMatchObject({ allowed: false });
    expect(await checkTarget(new URL('https://[::1]:8443/'), false, resolver([]))).toMatchObject({ allowed: false });
    expect(await checkTarget(new URL('https://localhost/'), false, resolver(['93.184.216.34']))).toMatchObject({ allowed: false });
    const failing = async () => {
      throw new Error('ENOTFOUND');
    };
    expect(await checkTarget(url, false, failing)).toMatchObject({ allowed: false, reason: expect.stringContaining('ENOTFOUND') });
    expect(await checkTarget(new URL('http://127.0.0.1/'), true, failing)).toEqual({ allowed: true });
  });

  it('a refused target is a failed attempt with the reason, and no request is sent', async () => {
    process.env.ALLOW_PRIVATE_WEBHOOK_TARGETS = 'false';
    expect(await processDelivery(message, context)).toEqual({ status: 'FAILING' });
    expect(model.posts).toEqual([]);
    expect(eventUpdates()[0]).toMatchObject({ lastResponseCode: null, lastResponseBody: expect.stringMatching(/^Refused: 127\.0\.0\.1/) });
  });

  it('endpoint URLs: https only and no private literal unless private targets are allowed', () => {
    process.env.ALLOW_PRIVATE_WEBHOOK_TARGETS = 'false';
    for (const url of ['http://hooks.vendor.test/', 'https://127.0.0.1/', 'https://[::1]/', 'https://10.1.1.1/x', 'https://localhost:8443/']) {
      expect(() => urlRules(url), url).toThrow(expect.objectContaining({ status: 422, errors: [expect.objectContaining({ code: 'URL_NOT_ALLOWED' })] }));
    }
    expect(urlRules('https://hooks.vendor.test/in')).toBe('https://hooks.vendor.test/in');
    process.env.ALLOW_PRIVATE_WEBHOOK_TARGETS = 'true';
    expect(urlRules('http://127.0.0.1:8080/in')).toBe('http://127.0.0.1:8080/in');
  });
});

describe('messages', () => {
  it('a poison message is refused, and fails only its own batch item', async () => {
    expect(() => parseDeliveryMessage('not json')).toThrow(PoisonMessage);
    expect(() => parseDeliveryMessage('{"accountId":"a"}')).toThrow(PoisonMessage);
    expect(() => parseDeliveryMessage(JSON.stringify({ ...message, attempt: 0 }))).toThrow(PoisonMessage);
    const record = (messageId: string, body: string) => ({ messageId, body, receiptHandle: messageId, attributes: {}, messageAttributes: {}, md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: 'arn', awsRegion: 'x' });
    const event = { Records: [record('poison', '{{{'), record('good', JSON.stringify(message))] } as unknown as SQSEvent;
    const result = await handler(event, context);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'poison' }] });
    expect(model.posts).toHaveLength(1);
  });
});
