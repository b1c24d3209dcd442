/**
 * Webhook delivery, black-box against the local stack (docs/rules.md §26.4): a real
 * HTTP receiver on loopback gets every kind of change signed the Standard Webhooks way
 * (verified with the `standardwebhooks` package); failing attempts are retried with the same
 * webhook-id (the local stack's WEBHOOK_RETRY_DELAYS is 1,1,1: four attempts a second apart);
 * 410 disables the endpoint; a FAILED event can be retried; the same SQS message twice causes
 * one POST; a failed request emits nothing; a poison message ends in the dead-letter queue.
 */
import { randomUUID } from 'node:crypto';
import { ReceiveMessageCommand, SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { basic, call, expectError, newAccount, newUser, type TestAccount, userBody } from '../support/client.ts';
import { localStackIdle } from '../support/idle.ts';
import { until } from '../support/patience.ts';
import { keygenSignatureProblem, ofKind, type Receiver, startReceiver, verify } from '../support/receiver.ts';

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An account with one global endpoint pointing at a fresh receiver. */
async function setup(
  attributes: Record<string, unknown> = {},
  options: { environment?: string; token?: string; account?: TestAccount } = {},
) {
  const account = options.account ?? (await newAccount());
  const receiver = await startReceiver();
  receivers.push(receiver);
  const reply = await call('POST', `${account.path}/webhook-endpoints`, {
    token: options.token ?? account.adminToken,
    environment: options.environment,
    body: { data: { type: 'webhook-endpoints', attributes: { url: receiver.url, ...attributes } } },
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return { account, receiver, endpoint: reply.body.data, secret: reply.body.data.attributes.signingSecret as string };
}

async function eventsOf(account: TestAccount, kind: string, options: { token?: string; environment?: string } = {}) {
  const reply = await call('GET', `${account.path}/webhook-events?events[]=${kind}&page[size]=100`, {
    token: options.token ?? account.adminToken,
    environment: options.environment,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data as any[];
}

async function getEvent(account: TestAccount, id: string) {
  const reply = await call('GET', `${account.path}/webhook-events/${id}`, { token: account.adminToken });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data;
}

/** Polls an event until `done` holds, recording each distinct status seen on the way. */
async function watch(account: TestAccount, id: string, done: (event: any) => boolean) {
  const seen: string[] = [];
  return until(
    async () => {
      const event = await getEvent(account, id);
      if (seen.at(-1) !== event.attributes.status) seen.push(event.attributes.status);
      return done(event) && { event, seen };
    },
    () => `event ${id} to be done; seen ${seen.join(' → ')}`,
  );
}

describe.concurrent('every change reaches a subscribed endpoint, signed', () => {
  it('users, tokens, the account, environments and endpoints each emit their event, verifiable with standardwebhooks', async () => {
    const { account, receiver, endpoint, secret } = await setup();
    const { publicKey } = account;
    const admin = (method: string, path: string, body?: unknown) =>
      call(method, `${account.path}${path}`, { token: account.adminToken, body });

    const user = await newUser(account); // user.created, token.generated (login)
    expect((await admin('PATCH', `/users/${user.id}`, userBody({ firstName: 'Changed' }))).status).toBe(200); // user.updated
    expect((await admin('DELETE', `/tokens/${user.tokenId}`)).status).toBe(204); // token.deleted
    expect((await admin('POST', `/users/${user.id}/actions/ban`)).status).toBe(200); // user.updated
    expect((await admin('POST', `/users/${user.id}/actions/unban`)).status).toBe(200); // user.updated
    expect((await admin('DELETE', `/users/${user.id}`)).status).toBe(204); // user.deleted
    expect((await admin('PATCH', '', { data: { type: 'accounts', attributes: { name: 'Renamed' } } })).status).toBe(200); // account.updated
    const code = `ev-${randomUUID().slice(0, 8)}`;
    const env = await admin('POST', '/environments', { data: { type: 'environments', attributes: { name: code, code } } }); // environment.created
    expect(env.status).toBe(201);
    expect(
      (await admin('PATCH', `/environments/${code}`, { data: { type: 'environments', attributes: { name: 'Renamed' } } })).status,
    ).toBe(200); // environment.updated
    expect((await admin('DELETE', `/environments/${code}`)).status).toBe(204); // environment.deleted
    const second = await admin('POST', '/webhook-endpoints', {
      data: { type: 'webhook-endpoints', attributes: { url: 'https://127.0.0.1:9/x' } },
    }); // webhook-endpoint.created
    expect(
      (
        await admin('PATCH', `/webhook-endpoints/${second.body.data.id}`, {
          data: { type: 'webhook-endpoints', attributes: { subscriptions: ['user.created'] } },
        })
      ).status,
    ).toBe(200); // webhook-endpoint.updated
    expect((await admin('DELETE', `/webhook-endpoints/${second.body.data.id}`)).status).toBe(204); // webhook-endpoint.deleted

    const expected: Record<string, number> = {
      'user.created': 1,
      'token.generated': 1,
      'user.updated': 3,
      'token.deleted': 1,
      'user.deleted': 1,
      'account.updated': 1,
      'environment.created': 1,
      'environment.updated': 1,
      'environment.deleted': 1,
      'webhook-endpoint.created': 1,
      'webhook-endpoint.updated': 1,
      'webhook-endpoint.deleted': 1,
    };
    const total = Object.values(expected).reduce((a, b) => a + b, 0);
    const deliveries = await receiver.waitFor((d) => d.length >= total);
    await localStackIdle();
    expect(receiver.deliveries).toHaveLength(total);
    for (const [kind, count] of Object.entries(expected)) expect(ofKind(deliveries, kind), kind).toHaveLength(count);

    for (const delivery of deliveries) {
      // Signed: the standardwebhooks package (nobody here wrote it) verifies every delivery.
      expect(() => verify(secret, delivery)).not.toThrow();
      // And as Keygen signs it, for Keygen's SDKs: the account's Ed25519 key, checked by tweetnacl.
      expect(keygenSignatureProblem(delivery, publicKey)).toBeUndefined();
      const document = delivery.json.data;
      expect(document.type).toBe('webhook-events');
      expect(delivery.headers['webhook-id']).toBe(document.meta.idempotencyToken);
      expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(document.attributes.endpoint).toBe(receiver.url);
      expect(document.relationships.account.data).toEqual({ type: 'accounts', id: account.id });
      expect(document.relationships.endpoint.data).toEqual({ type: 'webhook-endpoints', id: endpoint.id });
      const payload = JSON.parse(document.attributes.payload);
      const [type] = document.attributes.event.split('.');
      expect(payload.data.type).toBe(type === 'account' ? 'accounts' : `${type}s`);
    }
    // A tampered body fails verification.
    const first = deliveries[0]!;
    expect(() => verify(secret, { ...first, body: first.body.replace('webhook-events', 'webhook-eventz') })).toThrow();
    expect(keygenSignatureProblem({ ...first, body: first.body.replace('webhook-events', 'webhook-eventz') }, publicKey)).toMatch(/Digest/);
    expect(keygenSignatureProblem({ ...first, target: `${first.target}x` }, publicKey)).toBe('the signature does not verify');
    const otherKey = (await newAccount()).publicKey;
    expect(keygenSignatureProblem(first, otherKey)).toBe('the signature does not verify');

    // The payload is the resource document: the user as created, the token without its value.
    const created = JSON.parse(ofKind(deliveries, 'user.created')[0]!.json.data.attributes.payload);
    expect(created.data).toMatchObject({ id: user.id, type: 'users', attributes: { email: user.email } });
    const login = JSON.parse(ofKind(deliveries, 'token.generated')[0]!.json.data.attributes.payload);
    expect(login.data.id).toBe(user.tokenId);
    expect(login.data.attributes).not.toHaveProperty('token');
    expect(JSON.stringify(deliveries.map((d) => d.body))).not.toContain(user.token);
    const updates = ofKind(deliveries, 'user.updated').map((d) => JSON.parse(d.json.data.attributes.payload).data.attributes.status);
    expect(updates.sort()).toEqual(['ACTIVE', 'ACTIVE', 'BANNED']);
    const gone = JSON.parse(ofKind(deliveries, 'environment.deleted')[0]!.json.data.attributes.payload);
    expect(gone.data).toMatchObject({ id: env.body.data.id, attributes: { code } });
  });

  it('only subscribed kinds are delivered, and not to a disabled endpoint', async () => {
    const { account, receiver } = await setup({ subscriptions: ['user.deleted'] });
    const off = await setup({}, { account });
    expect(
      (
        await call('PATCH', `${account.path}/webhook-endpoints/${off.endpoint.id}`, {
          token: account.adminToken,
          body: { data: { type: 'webhook-endpoints', attributes: { enabled: false } } },
        })
      ).status,
    ).toBe(200);
    const user = await newUser(account);
    await call('DELETE', `${account.path}/users/${user.id}`, { token: account.adminToken });
    await receiver.waitFor((d) => d.length >= 1);
    await localStackIdle();
    expect(receiver.deliveries.map((d) => d.json.data.attributes.event)).toEqual(['user.deleted']);
    expect(off.receiver.deliveries).toHaveLength(0);
  });

  it('events of an environment go only to its endpoints; global events only to global endpoints', async () => {
    const global = await setup();
    const { account } = global;
    const code = `iso-${randomUUID().slice(0, 8)}`;
    await call('POST', `${account.path}/environments`, {
      token: account.adminToken,
      body: { data: { type: 'environments', attributes: { name: code, code, isolationStrategy: 'SHARED' } } },
    });
    const tokenReply = await call('POST', `${account.path}/environments/${code}/tokens`, { token: account.adminToken, environment: code });
    expect(tokenReply.status).toBe(200);
    const local = await setup({}, { account, environment: code, token: tokenReply.body.data.attributes.token });

    const inside = await newUser(account, {}, { environment: code });
    const outside = await newUser(account);
    await local.receiver.waitFor((d) => ofKind(d, 'user.created').length >= 1 && ofKind(d, 'token.generated').length >= 1);
    await global.receiver.waitFor((d) => ofKind(d, 'user.created').length >= 1 && ofKind(d, 'token.generated').length >= 1);
    await localStackIdle();
    const ids = (r: Receiver, kind: string) => ofKind(r.deliveries, kind).map((d) => JSON.parse(d.json.data.attributes.payload).data.id);
    expect(ids(local.receiver, 'user.created')).toEqual([inside.id]);
    expect(ids(global.receiver, 'user.created')).toEqual([outside.id]);
    // environment.created (before the local endpoint existed) and the environment token went elsewhere:
    expect(ofKind(global.receiver.deliveries, 'environment.created')).toHaveLength(1);
    expect(ofKind(local.receiver.deliveries, 'environment.created')).toHaveLength(0);
    expect(ids(local.receiver, 'token.generated')).toEqual([inside.tokenId]);
    expect(ids(global.receiver, 'token.generated')).toEqual([outside.tokenId]);
  });
});

describe.concurrent('attempts and statuses', () => {
  it('a receiver that fails twice gets the event on the third attempt with the same webhook-id: DELIVERING → FAILING → DELIVERED', async () => {
    const { account, receiver, secret } = await setup({ subscriptions: ['user.created'] });
    // The first answer waits until the event has been seen DELIVERING; slow answers then keep
    // each status visible to the polling below.
    let listed!: () => void;
    const seenDelivering = new Promise<void>((resolve) => (listed = resolve));
    receiver.answer = (_d, n) =>
      n <= 2
        ? { status: 500, body: `failure ${n}`, delayMs: 800, ...(n === 1 ? { until: seenDelivering } : {}) }
        : { status: 200, body: 'thanks', delayMs: 800 };
    const user = await newUser(account);
    const [event] = await eventsOf(account, 'user.created');
    expect(event.attributes.status).toBe('DELIVERING');
    listed();
    const watched = await watch(account, event.id, (e) => e.attributes.status === 'DELIVERED');
    const { event: final } = watched;
    const seen = ['DELIVERING', ...watched.seen].filter((status, i, all) => status !== all[i - 1]);
    expect(seen).toEqual(['DELIVERING', 'FAILING', 'DELIVERED']);
    expect(final.attributes).toMatchObject({ lastResponseCode: 200, lastResponseBody: 'thanks' });

    const attempts = ofKind(receiver.deliveries, 'user.created');
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((d) => d.headers['webhook-id']))).toEqual(new Set([event.meta.idempotencyToken]));
    for (const attempt of attempts) expect(() => verify(secret, attempt)).not.toThrow();
    // About a second apart (1 s ± 10%, plus the slow answers).
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThan(800);
    expect(JSON.parse(attempts[2]!.json.data.attributes.payload).data.id).toBe(user.id);
  });

  it('records the last answer: FAILED after the last attempt, with the code and the first 2 KB of the body', async () => {
    const { account, receiver } = await setup({ subscriptions: ['user.created'] });
    receiver.answer = () => ({ status: 503, body: 'x'.repeat(5000) });
    await newUser(account);
    const [event] = await eventsOf(account, 'user.created');
    const { event: final, seen } = await watch(account, event.id, (e) => e.attributes.status === 'FAILED');
    expect(seen.at(-1)).toBe('FAILED');
    expect(seen.slice(0, -1).every((status) => ['DELIVERING', 'FAILING'].includes(status))).toBe(true);
    expect(final.attributes.lastResponseCode).toBe(503);
    expect(final.attributes.lastResponseBody).toBe('x'.repeat(2048));
    // 1 attempt + 3 retries, then no more.
    await localStackIdle();
    expect(ofKind(receiver.deliveries, 'user.created')).toHaveLength(4);
  });

  it('410 Gone fails the event at once and disables the endpoint', async () => {
    const { account, receiver, endpoint } = await setup();
    receiver.answer = () => ({ status: 410, body: 'gone' });
    await newUser(account);
    const [event] = await eventsOf(account, 'user.created');
    const { event: final } = await watch(account, event.id, (e) => e.attributes.status === 'FAILED');
    expect(final.attributes).toMatchObject({ lastResponseCode: 410, lastResponseBody: 'gone' });
    const after = await call('GET', `${account.path}/webhook-endpoints/${endpoint.id}`, { token: account.adminToken });
    expect(after.body.data.attributes.enabled).toBe(false);
    const before = receiver.deliveries.length;
    await newUser(account);
    await localStackIdle();
    expect(receiver.deliveries).toHaveLength(before);
  });

  it('a receiver that does not answer is a failed attempt without a code', async () => {
    const { account, receiver } = await setup({ subscriptions: ['user.created'] });
    await receiver.close();
    await newUser(account);
    const [event] = await eventsOf(account, 'user.created');
    const { event: final } = await watch(account, event.id, (e) => e.attributes.status !== 'DELIVERING');
    expect(['FAILING', 'FAILED']).toContain(final.attributes.status);
    expect(final.attributes.lastResponseCode).toBeNull();
    expect(final.attributes.lastResponseBody).toMatch(/ECONNREFUSED|failed/);
  });
});

describe.concurrent('retry', () => {
  it('retrying a FAILED event creates a new DELIVERING event with the same token, endpoint, payload and kind; the original stays', async () => {
    const { account, receiver, secret } = await setup({ subscriptions: ['user.created'] });
    receiver.answer = () => ({ status: 500, body: 'down' });
    await newUser(account);
    const [event] = await eventsOf(account, 'user.created');
    const { event: failed } = await watch(account, event.id, (e) => e.attributes.status === 'FAILED');

    receiver.answer = () => ({ status: 202 });
    const reply = await call('POST', `${account.path}/webhook-events/${event.id}/actions/retry`, { token: account.adminToken });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const retry = reply.body.data;
    expect(retry.id).not.toBe(event.id);
    expect(retry.type).toBe('webhook-events');
    expect(retry.meta).toEqual({ idempotencyToken: event.meta.idempotencyToken });
    expect(retry.attributes).toMatchObject({
      endpoint: failed.attributes.endpoint,
      payload: failed.attributes.payload,
      event: failed.attributes.event,
      status: 'DELIVERING',
      lastResponseCode: null,
      lastResponseBody: null,
    });
    expect(retry.links.self).toBe(`/v1/accounts/${account.id}/webhook-events/${retry.id}`);

    const { event: delivered } = await watch(account, retry.id, (e) => e.attributes.status === 'DELIVERED');
    expect(delivered.attributes.lastResponseCode).toBe(202);
    // The original is left as it was.
    expect(await getEvent(account, event.id)).toEqual(failed);
    // Same webhook-id on every delivery, the retry's included.
    const all = ofKind(receiver.deliveries, 'user.created');
    expect(all).toHaveLength(5);
    expect(new Set(all.map((d) => d.headers['webhook-id']))).toEqual(new Set([event.meta.idempotencyToken]));
    expect(all.at(-1)!.json.data.id).toBe(retry.id);
    expect(() => verify(secret, all.at(-1)!)).not.toThrow();
    // Both are listed, newest first.
    expect((await eventsOf(account, 'user.created')).map((e) => e.id)).toEqual([retry.id, event.id]);
  });

  it('retrying an event whose endpoint was deleted: 422', async () => {
    const { account, receiver, endpoint } = await setup({ subscriptions: ['user.created'] });
    await newUser(account);
    await receiver.waitFor((d) => d.length >= 1);
    const [event] = await eventsOf(account, 'user.created');
    expect((await call('DELETE', `${account.path}/webhook-endpoints/${endpoint.id}`, { token: account.adminToken })).status).toBe(204);
    expectError(await call('POST', `${account.path}/webhook-events/${event.id}/actions/retry`, { token: account.adminToken }), 422, {
      code: 'ENDPOINT_NOT_FOUND',
    });
    expect((await eventsOf(account, 'user.created')).map((e) => e.id)).toEqual([event.id]);
  });
});

describe.concurrent('the worker is an idempotent consumer', () => {
  it('the same SQS message delivered twice causes one POST', async () => {
    const { account, receiver } = await setup({ subscriptions: ['user.created'] });
    // Attempt 1 fails, so the event is FAILING (not final) while the duplicates arrive.
    receiver.answer = (_d, n) => (n === 1 ? { status: 500 } : { status: 200 });
    await newUser(account);
    const [event] = await eventsOf(account, 'user.created');
    await receiver.waitFor((d) => d.length >= 1);
    await watch(account, event.id, (e) => e.attributes.status === 'FAILING' || e.attributes.status === 'DELIVERED');
    const sqs = new SQSClient({});
    const message = JSON.stringify({ accountId: account.id, webhookEventId: event.id, attempt: 1 });
    await sqs.send(new SendMessageCommand({ QueueUrl: process.env.WEBHOOK_QUEUE_URL, MessageBody: message }));
    await sqs.send(new SendMessageCommand({ QueueUrl: process.env.WEBHOOK_QUEUE_URL, MessageBody: message }));
    await watch(account, event.id, (e) => e.attributes.status === 'DELIVERED');
    await localStackIdle();
    // Attempt 1 once, attempt 2 once: the duplicates of attempt 1 POSTed nothing.
    expect(receiver.deliveries).toHaveLength(2);
    sqs.destroy();
  });

  it('copies of a message sent together while its attempt runs cause one POST', async () => {
    const { account, receiver } = await setup({ subscriptions: ['user.created'] });
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    receiver.answer = () => ({ status: 204, until: answered });
    await newUser(account);
    const [event] = await eventsOf(account, 'user.created');
    await receiver.waitFor((d) => d.length >= 1);
    // The first attempt's POST is waiting for its answer. Copies of its message, in the form
    // that does not name the endpoint:
    const sqs = new SQSClient({});
    const body = JSON.stringify({ accountId: account.id, webhookEventId: event.id, attempt: 1 });
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: process.env.WEBHOOK_QUEUE_URL,
        Entries: ['a', 'b', 'c'].map((Id) => ({ Id, MessageBody: body })),
      }),
    );
    await sleep(300);
    answer();
    await watch(account, event.id, (e) => e.attributes.status === 'DELIVERED');
    // Copies that found the attempt running come back after the visibility timeout, and are declined.
    await localStackIdle();
    expect(receiver.deliveries).toHaveLength(1);
    sqs.destroy();
  });

  it('a poison message ends in the dead-letter queue', async () => {
    const sqs = new SQSClient({});
    const marker = `poison-${randomUUID()}`;
    const queueUrl = process.env.WEBHOOK_QUEUE_URL!;
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: `${marker} is not JSON` }));
    const deadLetterUrl = `${queueUrl}-dlq`;
    await until(
      async () => {
        const { Messages } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: deadLetterUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 0 }),
        );
        return (Messages ?? []).some((m) => m.Body?.startsWith(marker));
      },
      () => 'the poison message in the dead-letter queue',
    );
    sqs.destroy();
  });
});

describe.concurrent('a failed request emits nothing', () => {
  it('400, 403, 404 and 422 answers leave no webhook event behind', async () => {
    const { account, receiver } = await setup();
    const admin = (method: string, path: string, body?: unknown) =>
      call(method, `${account.path}${path}`, { token: account.adminToken, body });
    expect((await admin('POST', '/users', userBody({ email: account.adminEmail }))).status).toBe(422); // e-mail taken
    expect((await admin('POST', '/users', userBody({ email: 'x@y.example', unknown: 1 }))).status).toBe(400);
    expect((await admin('PATCH', `/users/${randomUUID()}`, userBody({ firstName: 'x' }))).status).toBe(404);
    expect((await admin('DELETE', `/users/${account.adminId}`)).status).toBe(403); // cannot delete yourself
    expect((await call('POST', `${account.path}/tokens`, { authorization: basic(account.adminEmail, 'wrong password') })).status).toBe(401);
    expect(
      (await admin('POST', '/environments', { data: { type: 'environments', attributes: { name: 'x', code: 'actions' } } })).status,
    ).toBe(422);
    // Then one change that succeeds: its event is the only one.
    const user = await newUser(account, {}, {});
    await receiver.waitFor((d) => ofKind(d, 'token.generated').length >= 1);
    await localStackIdle();
    const kinds = receiver.deliveries.map((d) => d.json.data.attributes.event).sort();
    expect(kinds).toEqual(['token.generated', 'user.created']);
    const all = await call('GET', `${account.path}/webhook-events?page[size]=100`, { token: account.adminToken });
    expect(all.body.links.meta.count).toBe(2);
    expect(JSON.parse(all.body.data.find((e: any) => e.attributes.event === 'user.created').attributes.payload).data.id).toBe(user.id);
  });
});
