/**
 * The webhook worker's failure paths against a stand-in table (the document client mocked,
 * its condition and update expressions evaluated as DynamoDB would), a mocked SQS client and a
 * stubbed POST (the transport's; no local stack): attempt n is claimed on the event before the POST, so a copy
 * of the message is a no-op and a copy arriving mid-attempt fails to come back later; the claim
 * is given back when processing throws; three requests per attempt; retries are scheduled per
 * WEBHOOK_RETRY_DELAYS, delays over 15 minutes as hops; refused targets never see a request;
 * poison messages fail their batch item.
 */
import { createHash } from 'node:crypto';
import {
  BatchGetItemCommand,
  ConditionalCheckFailedException,
  DynamoDBClient,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { Webhook } from 'standardwebhooks';
import nacl from 'tweetnacl';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler } from '#functions/workers/deliver-webhook.ts';
import { keyFromSeed } from '#shared/auth/signing-key.ts';
import { attempt, processDelivery, RESPONSE_BODY_MAX, retryDelaySeconds } from '#shared/events/deliver.ts';
import { type DeliveryMessage, PoisonMessage, parseDeliveryMessage, scheduleAttempt } from '#shared/events/messages.ts';
import { checkTarget, isRefusedAddress } from '#shared/events/targets.ts';
import type { PinnedAnswer, PinnedPost, postPinned } from '#shared/events/transport.ts';
import { urlRules } from '#shared/resources/webhook-endpoints/entity.ts';
import { recordKey } from '#shared/store/keys.ts';
import { applyUpdate, conditionHolds } from '../support/expressions.ts';

const ACCOUNT = '11111111-1111-4111-8111-111111111111';
const EVENT = '22222222-2222-4222-8222-222222222222';
const ENDPOINT = '33333333-3333-4333-8333-333333333333';
const EVENT_PK = recordKey(ACCOUNT, 'webhook-events', EVENT).PK;
const ENDPOINT_PK = recordKey(ACCOUNT, 'webhook-endpoints', ENDPOINT).PK;
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const TOKEN = 'a'.repeat(64);

const saved = { delays: process.env.WEBHOOK_RETRY_DELAYS, allow: process.env.ALLOW_PRIVATE_WEBHOOK_TARGETS };
afterAll(() => {
  process.env.WEBHOOK_RETRY_DELAYS = saved.delays;
  process.env.ALLOW_PRIVATE_WEBHOOK_TARGETS = saved.allow;
});

/** The POST, answered by the test (test/unit/webhook-pinning.test.ts makes real ones). */
const stub = vi.hoisted(() => ({ post: undefined as unknown as typeof postPinned }));
vi.mock('#shared/events/transport.ts', async (original) => ({
  ...(await original<typeof import('#shared/events/transport.ts')>()),
  postPinned: (...args: Parameters<typeof postPinned>) => stub.post(...args),
}));

/**
 * The account's signing key, from a fixed seed: the stand-in table holds no account, and the
 * account's item and its sealing are the HTTP tests' (test/http/webhook-delivery.test.ts).
 */
const SIGNING = vi.hoisted(() => ({ seed: Buffer.alloc(32, 9) }));
vi.mock('#shared/auth/signing-key.ts', async (original) => {
  const actual = await original<typeof import('#shared/auth/signing-key.ts')>();
  return { ...actual, signingKeyOfAccount: async () => actual.keyFromSeed(SIGNING.seed) };
});

const documents = mockClient(DynamoDBDocumentClient);
/** The store's batch reads go through the plain client (shared/store/client.ts). */
const plain = mockClient(DynamoDBClient);
const sqs = mockClient(SQSClient);

type Stored = Record<string, any>;

interface Model {
  /** The table, by PK (every item here has SK '#'). */
  items: Map<string, Stored>;
  /** Throw instead of running the next request that matches, once. */
  failNext?: { when: (command: string, input: any) => boolean; error: Error };
  /**
   * Write the next update that matches, lose its answer and retry it, as the SDK does: the
   * caller gets the retry's answer (the same request, on the table as the first left it). Once.
   */
  retryNext?: (input: any) => boolean;
  /** Write the next update that matches, then fail without its answer, as when every try's answer is lost. Once. */
  loseNext?: (input: any) => boolean;
  /** Every request to the table, by command name. */
  requests: string[];
  transactions: any[][];
  sent: { body: any; delay: number | undefined }[];
  posts: { url: string; addresses: readonly string[]; init: PinnedPost }[];
}

let model: Model;
let answer: () => Promise<PinnedAnswer>;
/** An answer with this status and body. */
const reply = (status: number, body = '') => ({ status, body: Buffer.from(body) });

const context = { getRemainingTimeInMillis: () => 20_000, functionName: 'deliver', awsRequestId: 'r' } as unknown as Context;
const message: DeliveryMessage = { accountId: ACCOUNT, webhookEventId: EVENT, endpointId: ENDPOINT, attempt: 1 };
const stored = () => model.items.get(EVENT_PK);

function failing(command: string, input: any) {
  const fail = model.failNext;
  if (fail?.when(command, input)) {
    model.failNext = undefined;
    throw fail.error;
  }
}

const conditionFailed = (item: Stored | undefined) =>
  new ConditionalCheckFailedException({
    message: 'The conditional request failed',
    $metadata: {},
    Item: item && marshall(item, { removeUndefinedValues: true }),
  });

function install() {
  documents.reset();
  plain.reset();
  sqs.reset();
  documents.on(GetCommand).callsFake((input) => {
    model.requests.push('GetItem');
    failing('GetItem', input);
    const item = model.items.get(input.Key.PK);
    return { Item: item && structuredClone(item) };
  });
  plain.on(BatchGetItemCommand).callsFake((input) => {
    model.requests.push('BatchGetItem');
    failing('BatchGetItem', input);
    const [[table, { Keys, ConsistentRead }]] = Object.entries(input.RequestItems) as [string, any][];
    expect(ConsistentRead).toBe(true);
    const items = Keys.map((key: any) => model.items.get(unmarshall(key).PK))
      .filter(Boolean)
      .map((item: Stored) => marshall(item, { removeUndefinedValues: true }));
    return { Responses: { [table]: items }, UnprocessedKeys: {} };
  });
  documents.on(QueryCommand).callsFake(() => {
    model.requests.push('Query');
    return { Items: [] };
  });
  const update = (input: any) => {
    const current = model.items.get(input.Key.PK);
    if (!conditionHolds(input.ConditionExpression, current, input)) {
      throw conditionFailed(input.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' ? current : undefined);
    }
    const next = applyUpdate(input.UpdateExpression, current ?? { ...input.Key }, input);
    model.items.set(input.Key.PK, next);
    return { Attributes: input.ReturnValues === 'ALL_NEW' ? structuredClone(next) : undefined };
  };
  documents.on(UpdateCommand).callsFake((input) => {
    model.requests.push('UpdateItem');
    failing('UpdateItem', input);
    expect(input.TableName).toBe(process.env.TABLE_NAME);
    if (model.retryNext?.(input)) {
      model.retryNext = undefined;
      update(input);
    }
    if (model.loseNext?.(input)) {
      model.loseNext = undefined;
      update(input);
      throw Object.assign(new Error('no answer (simulated)'), { name: 'TimeoutError' });
    }
    return update(input);
  });
  documents.on(TransactWriteCommand).callsFake((input) => {
    model.requests.push('TransactWriteItems');
    failing('TransactWriteItems', input);
    const writes: [string, Stored | undefined][] = [];
    const reasons = input.TransactItems.map((operation: any) => {
      const write = operation.Update ?? operation.Put ?? operation.ConditionCheck;
      const key = write.Key?.PK ?? write.Item?.PK;
      const current = model.items.get(key);
      if (!conditionHolds(write.ConditionExpression, current, write)) return { Code: 'ConditionalCheckFailed' };
      if (operation.Update) writes.push([key, applyUpdate(write.UpdateExpression, current ?? { ...write.Key }, write)]);
      if (operation.Put) writes.push([key, write.Item]);
      return { Code: 'None' };
    });
    if (reasons.some((reason: any) => reason.Code !== 'None')) {
      throw new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: reasons });
    }
    for (const [key, item] of writes) model.items.set(key, item!);
    model.transactions.push(input.TransactItems);
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
    items: new Map([
      [
        EVENT_PK,
        {
          ...recordKey(ACCOUNT, 'webhook-events', EVENT),
          type: 'webhook-events',
          id: EVENT,
          accountId: ACCOUNT,
          environmentId: null,
          created: '2024-01-01T00:00:00.000Z',
          updated: '2024-01-01T00:00:00.000Z',
          endpointId: ENDPOINT,
          endpoint: 'http://127.0.0.1:9/hook',
          payload: '{"data":{"type":"users","id":"x"}}',
          event: 'user.created',
          status: 'DELIVERING',
          lastResponseCode: null,
          lastResponseBody: null,
          idempotencyToken: TOKEN,
          markers: [],
        },
      ],
      [
        ENDPOINT_PK,
        {
          ...recordKey(ACCOUNT, 'webhook-endpoints', ENDPOINT),
          type: 'webhook-endpoints',
          id: ENDPOINT,
          accountId: ACCOUNT,
          environmentId: null,
          created: '2024-01-01T00:00:00.000Z',
          updated: '2024-01-01T00:00:00.000Z',
          url: 'http://127.0.0.1:9/hook',
          subscriptions: ['*'],
          enabled: true,
          signingSecret: SECRET,
          markers: [],
        },
      ],
    ]),
    requests: [],
    transactions: [],
    sent: [],
    posts: [],
  };
  answer = async () => reply(200, 'ok');
  stub.post = async (url, addresses, init) => {
    model.posts.push({ url: String(url), addresses, init });
    // As the transport does: no more of the body than asked for.
    const { status, body } = await answer();
    return { status, body: body.subarray(0, init.maxBodyBytes) };
  };
  install();
});

const sqsRecord = (messageId: string, body: unknown) => ({
  messageId,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  receiptHandle: messageId,
  attributes: {},
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn',
  awsRegion: 'x',
});
const batch = (...records: ReturnType<typeof sqsRecord>[]) => ({ Records: records }) as unknown as SQSEvent;

/** Another event of the account, to the endpoint given (a copy of the first one otherwise). */
function addEvent(id: string, endpointId = ENDPOINT) {
  const pk = recordKey(ACCOUNT, 'webhook-events', id).PK;
  model.items.set(pk, { ...structuredClone(model.items.get(EVENT_PK)!), PK: pk, id, endpointId });
  return { accountId: ACCOUNT, webhookEventId: id, endpointId, attempt: 1 };
}

describe('one attempt', () => {
  it('POSTs the event document signed the Standard Webhooks way and records DELIVERED, in three requests', async () => {
    expect(await processDelivery(message, context)).toEqual({ status: 'DELIVERED' });
    expect(model.posts).toHaveLength(1);
    const { url, addresses, init } = model.posts[0]!;
    expect(url).toBe('http://127.0.0.1:9/hook');
    // To the address checked (an IP literal is its own).
    expect(addresses).toEqual(['127.0.0.1']);
    const headers = init.headers;
    expect(headers['webhook-id']).toBe(TOKEN);
    const verified = new Webhook(SECRET).verify(init.body, headers) as any;
    expect(verified.data).toMatchObject({ id: EVENT, type: 'webhook-events', meta: { idempotencyToken: TOKEN } });
    // Signed as Keygen signs it too, with the account's key over the POST's target, Host, Date and Digest.
    const signingString = [`(request-target): post /hook`, 'host: 127.0.0.1:9', `date: ${headers.date}`, `digest: ${headers.digest}`].join(
      '\n',
    );
    expect(headers.digest).toBe(`sha-256=${createHash('sha256').update(init.body).digest('base64')}`);
    const signature = /signature="([^"]+)"/.exec(headers['keygen-signature'])?.[1] ?? '';
    expect(
      nacl.sign.detached.verify(
        Buffer.from(signingString),
        Buffer.from(signature, 'base64'),
        Buffer.from(keyFromSeed(SIGNING.seed).publicKey, 'hex'),
      ),
    ).toBe(true);
    // The claim on the event (which reads it) and the endpoint read, then the outcome.
    expect(model.requests.sort()).toEqual(['GetItem', 'UpdateItem', 'UpdateItem']);
    expect(stored()).toMatchObject({ status: 'DELIVERED', lastResponseCode: 200, lastResponseBody: 'ok', deliveryAttempt: 1 });
    // The lease ends with the outcome.
    expect(stored()!.deliveryLease).toBeUndefined();
    expect(model.sent).toEqual([]);
  });

  it("a message that does not name the endpoint reads it after the claim; one that names another reads the event's", async () => {
    const { endpointId: _omitted, ...bare } = message;
    expect(await processDelivery(bare, context)).toEqual({ status: 'DELIVERED' });
    expect(model.requests).toEqual(['UpdateItem', 'GetItem', 'UpdateItem']);
    expect(await processDelivery({ ...message, attempt: 2, endpointId: '44444444-4444-4444-8444-444444444444' }, context)).toEqual({
      status: 'DELIVERED',
      skipped: true,
    });
    model.items.get(EVENT_PK)!.status = 'FAILING';
    model.requests = [];
    expect(await processDelivery({ ...message, attempt: 2, endpointId: '44444444-4444-4444-8444-444444444444' }, context)).toEqual({
      status: 'DELIVERED',
    });
    expect(model.posts).toHaveLength(2);
    // The endpoint the message names, read alongside the claim, then the event's own.
    expect(model.requests.sort()).toEqual(['GetItem', 'GetItem', 'UpdateItem', 'UpdateItem']);
  });

  it('the same message twice: one POST, the second declined by the claim', async () => {
    answer = async () => reply(500, 'nope');
    expect(await processDelivery(message, context)).toEqual({ status: 'FAILING' });
    expect(await processDelivery(message, context)).toEqual({ status: 'FAILING', skipped: true });
    expect(model.posts).toHaveLength(1);
    // The copy queues the next attempt again, in case its first run could not: one of the two claims it.
    expect(model.sent.map((sent) => sent.body.attempt)).toEqual([2, 2]);
    // A different attempt of the same event is another claim.
    await processDelivery({ ...message, attempt: 2 }, context);
    expect(model.posts).toHaveLength(2);
    // And the first attempt, come again after it, is declined too.
    expect(await processDelivery(message, context)).toEqual({ status: 'FAILING', skipped: true });
    expect(model.posts).toHaveLength(2);
  });

  it('a duplicate arriving while the attempt is in flight is sent again, due when its lease ends, without POSTing', async () => {
    let release!: () => void;
    answer = () => new Promise((resolve) => (release = () => resolve(reply(204))));
    const first = processDelivery(message, context);
    await vi.waitFor(() => expect(model.posts).toHaveLength(1));
    expect(await processDelivery(message, context)).toBe('HOP');
    const lease = Number(model.items.get(EVENT_PK)!.deliveryLease);
    expect(model.sent.map((sent) => sent.body)).toEqual([{ ...message, notBefore: lease }]);
    release();
    expect(await first).toEqual({ status: 'DELIVERED' });
    expect(model.posts).toHaveLength(1);
  });

  it('two copies in one batch: one POST; the copy that found the attempt running comes back, due when its lease ends', async () => {
    const result = await handler(batch(sqsRecord('first', message), sqsRecord('copy', message)), context);
    expect(model.posts).toHaveLength(1);
    expect(result).toEqual({ batchItemFailures: [] });
    const [copy] = model.sent.map((sent) => sent.body);
    expect(copy).toMatchObject(message);
    // Come back, the copy is declined.
    expect(await handler(batch(sqsRecord('copy', { ...copy, notBefore: Date.now() })), context)).toEqual({ batchItemFailures: [] });
    expect(model.posts).toHaveLength(1);
  });

  it('a batch reads the endpoints its messages name in one request: two more per attempt', async () => {
    const OTHER = '44444444-4444-4444-8444-444444444444';
    const OTHER_PK = recordKey(ACCOUNT, 'webhook-endpoints', OTHER).PK;
    model.items.set(OTHER_PK, {
      ...structuredClone(model.items.get(ENDPOINT_PK)!),
      PK: OTHER_PK,
      id: OTHER,
      url: 'http://127.0.0.1:9/other',
    });
    const second = addEvent('55555555-5555-4555-8555-555555555555');
    const third = addEvent('66666666-6666-4666-8666-666666666666', OTHER);
    const result = await handler(batch(sqsRecord('1', message), sqsRecord('2', second), sqsRecord('3', third)), context);
    expect(result).toEqual({ batchItemFailures: [] });
    expect(model.posts).toHaveLength(3);
    expect(model.requests.filter((request) => request === 'BatchGetItem')).toHaveLength(1);
    expect(model.requests.filter((request) => request !== 'BatchGetItem').sort()).toEqual(Array(6).fill('UpdateItem'));
    for (const post of model.posts) expect(() => new Webhook(SECRET).verify(post.init.body, post.init.headers)).not.toThrow();
  });

  it('a batch whose endpoints cannot be read ahead reads them attempt by attempt; a malformed message fails alone', async () => {
    model.failNext = { when: (command) => command === 'BatchGetItem', error: new Error('read failed (simulated)') };
    const second = addEvent('55555555-5555-4555-8555-555555555555');
    const result = await handler(batch(sqsRecord('1', message), sqsRecord('2', second), sqsRecord('bad', '{')), context);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'bad' }] });
    expect(model.posts).toHaveLength(2);
    expect(model.requests.filter((request) => request === 'GetItem')).toHaveLength(2);
  });

  it('an endpoint the batch found missing is not read again: FAILED without a POST', async () => {
    model.items.delete(ENDPOINT_PK);
    expect(await handler(batch(sqsRecord('1', message)), context)).toEqual({ batchItemFailures: [] });
    expect(model.posts).toEqual([]);
    expect(stored()).toMatchObject({ status: 'FAILED', lastResponseBody: 'The webhook endpoint no longer exists' });
    expect(model.requests).toEqual(['BatchGetItem', 'UpdateItem', 'UpdateItem']);
  });

  it('a run that died holding the claim is taken over once its lease is over', async () => {
    const now = Date.now();
    Object.assign(model.items.get(EVENT_PK)!, { deliveryAttempt: 1, deliveryLease: now + 60_000 });
    expect(await processDelivery(message, context)).toBe('HOP');
    expect(model.sent.map((sent) => [sent.body.notBefore, sent.delay])).toEqual([[now + 60_000, 60]]);
    model.items.get(EVENT_PK)!.deliveryLease = now - 1;
    expect(await processDelivery(message, context)).toEqual({ status: 'DELIVERED' });
    expect(model.posts).toHaveLength(1);
  });

  it('a run that outlived its lease and was taken over leaves the outcome to the run that took over', async () => {
    answer = async () => {
      // Meanwhile another run took the attempt over (with a lease of its own, never equal to this run's).
      const event = model.items.get(EVENT_PK)!;
      event.deliveryLease = Number(event.deliveryLease) + 1;
      return reply(500);
    };
    expect(await processDelivery(message, context)).toEqual({ status: 'FAILING', skipped: true });
    expect(stored()).toMatchObject({ status: 'DELIVERING', lastResponseCode: null });
    expect(model.sent).toEqual([]);
  });

  it('when processing throws after the POST, the claim is given back so the redelivered message runs', async () => {
    model.failNext = {
      when: (command, input) => command === 'UpdateItem' && input.UpdateExpression.includes('#status'),
      error: new Error('ProvisionedThroughputExceeded (simulated)'),
    };
    await expect(processDelivery(message, context)).rejects.toThrow(/simulated/);
    expect(stored()).toMatchObject({ status: 'DELIVERING', deliveryAttempt: 0 });
    expect(stored()!.deliveryLease).toBeUndefined();
    // SQS delivers it again: it runs.
    expect(await processDelivery(message, context)).toEqual({ status: 'DELIVERED' });
    expect(model.posts).toHaveLength(2);
  });

  it('when the endpoint cannot be read, nothing is POSTed and the claim is given back', async () => {
    model.failNext = { when: (command) => command === 'GetItem', error: new Error('read failed (simulated)') };
    await expect(processDelivery(message, context)).rejects.toThrow(/simulated/);
    expect(model.posts).toEqual([]);
    expect(stored()!.deliveryLease).toBeUndefined();
    expect(await processDelivery(message, context)).toEqual({ status: 'DELIVERED' });
  });

  it('when the POST throws (network error, timeout), the attempt fails: FAILING, no code, the next attempt scheduled', async () => {
    answer = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    };
    expect(await processDelivery(message, context)).toEqual({ status: 'FAILING' });
    expect(stored()).toMatchObject({ status: 'FAILING', lastResponseBody: 'The request failed: ECONNREFUSED' });
    expect(stored()!.lastResponseCode).toBeUndefined();
    expect(model.sent).toHaveLength(1);
    expect(model.sent[0]!.body).toEqual({ ...message, attempt: 2 });
    expect(model.sent[0]!.delay).toBeGreaterThanOrEqual(27);
    expect(model.sent[0]!.delay).toBeLessThanOrEqual(33);
  });

  it('when the next attempt cannot be queued, the message fails; come back, it queues it without POSTing again', async () => {
    answer = async () => reply(502);
    sqs.on(SendMessageCommand).rejectsOnce(new Error('SQS unavailable'));
    await expect(processDelivery(message, context)).rejects.toThrow(/SQS unavailable/);
    expect(stored()).toMatchObject({ status: 'FAILING', deliveryAttempt: 1 });
    sqs.on(SendMessageCommand).callsFake((input) => {
      model.sent.push({ body: JSON.parse(input.MessageBody!), delay: input.DelaySeconds });
      return { MessageId: 'm' };
    });
    expect(await processDelivery(message, context)).toEqual({ status: 'FAILING', skipped: true });
    expect(model.posts).toHaveLength(1);
    expect(model.sent.map((sent) => sent.body)).toEqual([{ ...message, attempt: 2 }]);
    expect(model.sent[0]!.delay).toBeGreaterThanOrEqual(27);
    expect(model.sent[0]!.delay).toBeLessThanOrEqual(33);
  });

  it('a claim whose answer was lost holds when the SDK retries it: one POST, DELIVERED', async () => {
    model.retryNext = (input) => input.UpdateExpression.startsWith('SET deliveryAttempt = :attempt, deliveryLease');
    expect(await processDelivery(message, context)).toEqual({ status: 'DELIVERED' });
    expect(model.posts).toHaveLength(1);
    expect(stored()!.deliveryLease).toBeUndefined();
  });

  it('a claim that got no answer at all is given back, so the message, come back, runs at once', async () => {
    // Written, then its answer lost on every try: the run cannot tell it holds the claim.
    model.loseNext = (input) => input.UpdateExpression.startsWith('SET deliveryAttempt = :attempt, deliveryLease');
    await expect(processDelivery(message, context)).rejects.toThrow(/no answer/);
    expect(stored()).toMatchObject({ status: 'DELIVERING', deliveryAttempt: 0 });
    expect(stored()!.deliveryLease).toBeUndefined();
    expect(await processDelivery(message, context)).toEqual({ status: 'DELIVERED' });
    expect(model.posts).toHaveLength(1);
  });

  it('an outcome whose answer was lost holds when the SDK retries it: the next attempt is queued', async () => {
    answer = async () => reply(500);
    model.retryNext = (input) => input.UpdateExpression.includes('#status = :status');
    expect(await processDelivery(message, context)).toEqual({ status: 'FAILING' });
    expect(model.sent.map((sent) => sent.body.attempt)).toEqual([2]);
  });

  it('keeps the first 2 KB of the answer', async () => {
    answer = async () => reply(500, 'é'.repeat(10_000));
    await processDelivery(message, context);
    expect(stored()!.lastResponseBody).toBe('é'.repeat(RESPONSE_BODY_MAX));
  });

  it('after the last attempt: FAILED and nothing scheduled', async () => {
    answer = async () => reply(500);
    expect(await processDelivery({ ...message, attempt: 3 }, context)).toEqual({ status: 'FAILED' });
    expect(model.sent).toEqual([]);
  });

  it('410 Gone: FAILED at once, and the endpoint disabled in the same transaction', async () => {
    answer = async () => reply(410, 'gone');
    expect(await processDelivery(message, context)).toEqual({ status: 'FAILED' });
    expect(model.sent).toEqual([]);
    const [tx] = model.transactions;
    expect(tx!.map((op) => op.Update?.Key.PK)).toEqual(expect.arrayContaining([EVENT_PK, ENDPOINT_PK]));
    expect(stored()).toMatchObject({ status: 'FAILED', lastResponseCode: 410 });
    expect(stored()!.deliveryLease).toBeUndefined();
    expect(model.items.get(ENDPOINT_PK)!.enabled).toBe(false);
  });

  it('410 Gone from an event removed during the POST: nothing disabled', async () => {
    answer = async () => {
      model.items.delete(EVENT_PK);
      return reply(410, 'gone');
    };
    expect(await processDelivery(message, context)).toEqual({ status: 'GONE' });
    expect(model.items.get(ENDPOINT_PK)!.enabled).toBe(true);
  });

  it('an event already DELIVERED or FAILED, or gone, is acknowledged without a POST', async () => {
    model.items.get(EVENT_PK)!.status = 'DELIVERED';
    expect(await attempt(message)).toEqual({ status: 'DELIVERED', skipped: true });
    model.items.delete(EVENT_PK);
    expect(await attempt(message)).toEqual({ status: 'GONE', skipped: true });
    expect(model.posts).toEqual([]);
  });

  it('an event removed during the POST: GONE, nothing scheduled', async () => {
    answer = async () => {
      model.items.delete(EVENT_PK);
      return reply(500);
    };
    expect(await processDelivery(message, context)).toEqual({ status: 'GONE' });
    expect(model.sent).toEqual([]);
  });

  it('an endpoint deleted or disabled since: FAILED without a POST', async () => {
    model.items.get(ENDPOINT_PK)!.enabled = false;
    expect(await attempt(message)).toEqual({ status: 'FAILED' });
    expect(stored()!.lastResponseBody).toBe('The webhook endpoint is disabled');
    model.items.get(EVENT_PK)!.status = 'DELIVERING';
    model.items.delete(ENDPOINT_PK);
    expect(await attempt({ ...message, attempt: 2 })).toEqual({ status: 'FAILED' });
    expect(stored()!.lastResponseBody).toBe('The webhook endpoint no longer exists');
    expect(model.posts).toEqual([]);
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
    expect(stored()!.deliveryAttempt).toBeUndefined();
    expect(await processDelivery({ ...hop, notBefore: Date.now() - 1 }, context)).toEqual({ status: 'DELIVERED' });
    expect(model.posts).toHaveLength(1);
  });
});

describe('refused targets', () => {
  it('classifies private, loopback, link-local, unique-local and unspecified addresses, IPv4-mapped included', () => {
    const refused = [
      '127.0.0.1',
      '127.8.9.10',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      '::ffff:127.0.0.1',
      '::ffff:10.1.2.3',
      '::ffff:a9fe:a9fe',
      '64:ff9b::7f00:1',
      '64:ff9b::127.0.0.1',
      'not-an-ip',
      // IPv4 hidden in other IPv6 spellings: compatible, translated, local-use NAT64, 6to4 of a private address.
      '::7f00:1',
      '::127.0.0.1',
      '::ffff:0:7f00:1',
      '64:ff9b:1::808:808',
      '2002:7f00:1::',
      '2002:c0a8:101::1',
      '2001:db8::1',
    ];
    const allowed = [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '192.169.0.1',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '64:ff9b::8.8.8.8',
      '2002:808:808::1',
    ];
    for (const address of refused) expect(isRefusedAddress(address), address).toBe(true);
    for (const address of allowed) expect(isRefusedAddress(address), address).toBe(false);
  });

  it('refuses a host when any address it resolves to is private, and localhost names without resolving', async () => {
    const resolver = (addresses: string[]) => async () => addresses.map((address) => ({ address }));
    const url = new URL('https://hooks.vendor.test/in');
    expect(await checkTarget(url, false, resolver(['93.184.216.34']))).toEqual({ allowed: true, addresses: ['93.184.216.34'] });
    expect(await checkTarget(url, false, resolver(['93.184.216.34', '10.0.0.5']))).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('10.0.0.5'),
    });
    expect(await checkTarget(url, false, resolver(['::ffff:169.254.169.254']))).toMatchObject({ allowed: false });
    expect(await checkTarget(new URL('https://[::1]:8443/'), false, resolver([]))).toMatchObject({ allowed: false });
    expect(await checkTarget(new URL('https://localhost/'), false, resolver(['93.184.216.34']))).toMatchObject({ allowed: false });
    const failing = async () => {
      throw new Error('ENOTFOUND');
    };
    expect(await checkTarget(url, false, failing)).toMatchObject({ allowed: false, reason: expect.stringContaining('ENOTFOUND') });
    // Private targets allowed: nothing judged, but the host still resolved (an IP literal is its own address).
    expect(await checkTarget(new URL('http://127.0.0.1/'), true, failing)).toEqual({ allowed: true, addresses: ['127.0.0.1'] });
    expect(await checkTarget(new URL('http://[::1]:8080/'), true, failing)).toEqual({ allowed: true, addresses: ['::1'] });
    expect(await checkTarget(url, true, resolver(['10.0.0.5', '::1']))).toEqual({ allowed: true, addresses: ['10.0.0.5', '::1'] });
    expect(await checkTarget(url, true, failing)).toMatchObject({ allowed: false, reason: expect.stringContaining('ENOTFOUND') });
  });

  it('a refused target is a failed attempt with the reason, and no request is sent', async () => {
    process.env.ALLOW_PRIVATE_WEBHOOK_TARGETS = 'false';
    expect(await processDelivery(message, context)).toEqual({ status: 'FAILING' });
    expect(model.posts).toEqual([]);
    expect(stored()).toMatchObject({ status: 'FAILING', lastResponseBody: expect.stringMatching(/^Refused: 127\.0\.0\.1/) });
  });

  it('endpoint URLs: https only and no private literal unless private targets are allowed', () => {
    process.env.ALLOW_PRIVATE_WEBHOOK_TARGETS = 'false';
    for (const url of [
      'http://hooks.vendor.test/',
      'https://127.0.0.1/',
      'https://[::1]/',
      'https://10.1.1.1/x',
      'https://localhost:8443/',
    ]) {
      // A rule of the model broken: 422 at the API (shared/http/errors.ts toApiError).
      expect(() => urlRules(url), url).toThrow(expect.objectContaining({ name: 'RuleBroken', code: 'URL_NOT_ALLOWED' }));
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
    const event = batch(sqsRecord('poison', '{{{'), sqsRecord('good', message));
    const result = await handler(event, context);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'poison' }] });
    expect(model.posts).toHaveLength(1);
  });
});
