/**
 * Unauthenticated routes are limited per source address and route (docs/rules.md §7.3).
 *
 * The shared local stack runs with a limit too high to reach, so the other test files can call
 * these routes freely from 127.0.0.1. This file starts a second API server of its own, in this
 * process, over the same table and queues, with a limit of 3; and it calls it from loopback
 * addresses no other test uses (127.x.y.z), one per test, so the counts it reaches are its own
 * even though every server counts in the same table.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalHttpServer, startHttpServer } from '#dev/local/http-adapter.ts';
import { REPOSITORY_ROOT } from '#dev/local/stack.ts';
import { fallback, routes } from '#shared/routes.ts';
import { basic, type TestAccount } from '../support/client.ts';
import { localStackIdle } from '../support/idle.ts';
import { type licensing, listeningAccount } from '../support/licensing.ts';
import { ofKind, type Receiver } from '../support/receiver.ts';

const LIMIT = 3;
let server: LocalHttpServer;
let account: TestAccount;
let l: ReturnType<typeof licensing>;
let receiver: Receiver;

beforeAll(async () => {
  process.env.RATE_LIMIT_PER_ADDRESS = String(LIMIT);
  server = await startHttpServer({ routes, fallback, root: REPOSITORY_ROOT, log: () => undefined });
  ({ account, l, receiver } = await listeningAccount());
});

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** A loopback address of this test's own. */
const freshAddress = () => `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;

/** One request to the second server, sent from `from`. */
function send(
  from: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${server.url}${account.path}${path}`,
      {
        method,
        localAddress: from,
        headers: {
          accept: 'application/vnd.api+json',
          ...(body ? { 'content-type': 'application/vnd.api+json' } : {}),
          ...options.headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: response.statusCode!, headers: response.headers, body: text ? JSON.parse(text) : undefined });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const validateKey = (from: string, headers?: Record<string, string>) =>
  send(from, 'POST', '/licenses/actions/validate-key', { body: { meta: { key: `no-such-key-${randomUUID()}` } }, headers });
const logIn = (from: string) =>
  send(from, 'POST', '/tokens', { headers: { authorization: basic(account.adminEmail, 'not the password') } });
const requestReset = (from: string) => send(from, 'POST', '/passwords', { body: { meta: { email: `${randomUUID()}@reset.example` } } });

/** Waits out the last seconds of a minute, so a burst of requests falls in one window. */
async function startOfWindow(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));
}

function expectLimited(answer: Answer) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(429);
  expect(answer.body.errors[0]).toMatchObject({ code: 'TOO_MANY_REQUESTS', title: 'Too many requests' });
  expect(answer.headers['content-type']).toBe('application/vnd.api+json');
  const retryAfter = Number(answer.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(answer.headers['x-ratelimit-limit']).toBe(String(LIMIT));
  expect(answer.headers['x-ratelimit-remaining']).toBe('0');
  expect(Number(answer.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
}

describe('limits per source address', () => {
  it('answers 429 with Retry-After and X-RateLimit-* past the limit of validate-key, and only for that address', async () => {
    await startOfWindow();
    const from = freshAddress();
    for (let i = 0; i < LIMIT; i++) expect((await validateKey(from)).status).toBe(200);
    expectLimited(await validateKey(from));
    expectLimited(await validateKey(from));
    expect((await validateKey(freshAddress())).status).toBe(200);
  });

  it('counts the validations of a key that exists: past the limit 429, and no event for it', async () => {
    const { license } = await l.graph();
    await startOfWindow();
    const from = freshAddress();
    const validate = () => send(from, 'POST', '/licenses/actions/validate-key', { body: { meta: { key: license.attributes.key } } });
    for (let i = 0; i < LIMIT; i++) expect((await validate()).status).toBe(200);
    expectLimited(await validate());
    expectLimited(await validate());
    await localStackIdle();
    const validations = receiver.deliveries.filter((d) => JSON.parse(d.json.data.attributes.payload).data?.id === license.id);
    expect(ofKind(validations, 'license.validation.succeeded')).toHaveLength(LIMIT);
  });

  it('counts failed logins too, before the credentials are checked', async () => {
    await startOfWindow();
    const from = freshAddress();
    for (let i = 0; i < LIMIT; i++) expect((await logIn(from)).status).toBe(401);
    expectLimited(await logIn(from));
  });

  it('limits password reset requests, whatever the e-mail address', async () => {
    await startOfWindow();
    const from = freshAddress();
    for (let i = 0; i < LIMIT; i++) expect((await requestReset(from)).status).toBe(202);
    expectLimited(await requestReset(from));
  });

  it('counts each route apart, and leaves authenticated routes alone', async () => {
    await startOfWindow();
    const from = freshAddress();
    for (let i = 0; i <= LIMIT; i++) await validateKey(from);
    expectLimited(await validateKey(from));
    expect((await logIn(from)).status).toBe(401);
    expect((await requestReset(from)).status).toBe(202);
    const read = await send(from, 'GET', '', { headers: { authorization: `Bearer ${account.adminToken}` } });
    expect(read.status).toBe(200);
  });

  it('takes the address from the connection: X-Forwarded-For and its kin change nothing', async () => {
    await startOfWindow();
    const from = freshAddress();
    const forged = (i: number) => ({
      'x-forwarded-for': `203.0.113.${i}`,
      'x-real-ip': `203.0.113.${i}`,
      forwarded: `for=203.0.113.${i}`,
      'true-client-ip': `203.0.113.${i}`,
    });
    for (let i = 0; i < LIMIT; i++) expect((await validateKey(from, forged(i))).status).toBe(200);
    expectLimited(await validateKey(from, forged(99)));
    expectLimited(await validateKey(from, { 'x-forwarded-for': freshAddress() }));
  });

  it('does not count requests to an account that does not exist', async () => {
    await startOfWindow();
    const from = freshAddress();
    const elsewhere = (): Promise<Answer> =>
      new Promise((resolve, reject) => {
        const outgoing = request(
          `${server.url}/v1/accounts/${randomUUID()}/licenses/actions/validate-key`,
          { method: 'POST', localAddress: from },
          (response) => {
            response.resume();
            response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: undefined }));
          },
        );
        outgoing.on('error', reject);
        outgoing.end();
      });
    for (let i = 0; i <= LIMIT; i++) expect((await elsewhere()).status).toBe(404);
    expect((await validateKey(from)).status).toBe(200);
  });
});
