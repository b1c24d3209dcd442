/**
 * Inputs that once reached past the contract: query names that touch prototypes, values that
 * DynamoDB cannot store or key, concurrent changes of unique values, limits raced in parallel,
 * and bearers of an environment reaching for the account.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { basic, call, expectError, newAccount, newUser, type TestAccount, userBody } from '../support/client.ts';

let account: TestAccount;
beforeAll(async () => {
  account = await newAccount();
});

const admin = (method: string, path: string, body?: unknown, environment?: string) =>
  call(method, `${account.path}${path}`, { token: account.adminToken, body, environment });

describe('query strings', () => {
  it('refuses names that would reach an object prototype, and other requests stay unaffected', async () => {
    for (const query of ['__proto__[environment]=nope', 'constructor[prototype][x]=1', 'page[__proto__]=1']) {
      expectError(await admin('GET', `/users?${query}`), 400, { code: 'PARAMETERS_INVALID' });
    }
    const other = await newAccount();
    expect((await call('GET', `${other.path}/users`, { token: other.adminToken })).status).toBe(200);
    expect((await call('POST', `${other.path}/passwords`, { body: { meta: { email: 'x@y.example' } } })).status).toBe(202);
  });

  it('reads a malformed query only after the account and the credentials', async () => {
    expectError(await call('GET', `/v1/accounts/${randomUUID()}/users?a[=1`), 404, { code: 'NOT_FOUND' });
    expectError(await call('GET', `${account.path}/users?a[=1`), 401, { code: 'TOKEN_MISSING' });
    expectError(await admin('GET', '/users?a[=1'), 400, { code: 'PARAMETERS_INVALID' });
  });

  it('refuses an oversized cursor and an oversized event kind with 400, not 500', async () => {
    const cursor = Buffer.from(`2024-01-01T${'1'.repeat(1500)}Z#${randomUUID()}`).toString('base64url');
    expectError(await admin('GET', `/users?page[cursor]=${cursor}`), 400, { source: { parameter: 'page[cursor]' } });
    expectError(await admin('GET', `/webhook-events?events[]=a.${'b'.repeat(3000)}`), 400, { code: 'PARAMETERS_INVALID' });
    expect((await admin('GET', '/users')).status).toBe(200);
  });
});

describe('values DynamoDB cannot store', () => {
  it('keeps metadata with numbers beyond 2^53, empty keys and deep nesting as sent', async () => {
    let deep: Record<string, unknown> = { end: true };
    for (let i = 0; i < 40; i++) deep = { deeper: deep };
    for (const metadata of [{ n: 12345678901234567000 }, { '': 1 }, deep]) {
      const reply = await admin('POST', '/users', userBody({ email: `${randomUUID()}@meta.example`, metadata }));
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expect(reply.body.data.attributes.metadata).toEqual(metadata);
    }
  });

  it('answers 202 to an address no user can hold, and queues nothing that could fail', async () => {
    expect((await call('POST', `${account.path}/passwords`, { body: { meta: { email: `${'a'.repeat(3000)}@x.example` } } })).status).toBe(
      202,
    );
  });
});

describe('concurrent changes', () => {
  it('leaves exactly one address held after concurrent e-mail changes; a change that lost the race gets 409', async () => {
    const user = await newUser(account);
    const emails = Array.from({ length: 6 }, () => `${randomUUID().slice(0, 8)}@race.example`);
    const replies = await Promise.all(emails.map((email) => admin('PATCH', `/users/${user.id}`, userBody({ email }))));
    // Changes that happen to run one after another all land; overlapping ones lose with 409.
    expect(replies.filter((reply) => reply.status === 200).length).toBeGreaterThanOrEqual(1);
    for (const reply of replies.filter((r) => r.status !== 200)) expectError(reply, 409, { code: 'CONFLICT' });
    const kept = (await admin('GET', `/users/${user.id}`)).body.data.attributes.email as string;
    expect(emails).toContain(kept);
    for (const email of emails.filter((e) => e !== kept)) {
      expect((await call('POST', `${account.path}/tokens`, { authorization: basic(email, user.password) })).status).toBe(401);
      expect((await admin('POST', '/users', userBody({ email }))).status).toBe(201);
    }
    expect((await call('POST', `${account.path}/tokens`, { authorization: basic(kept, user.password) })).status).toBe(201);
  });

  it('holds the limit of 20 webhook endpoints under 30 concurrent creates', async () => {
    const target = await newAccount();
    const body = { data: { type: 'webhook-endpoints', attributes: { url: 'https://127.0.0.1:9/hooks' } } };
    const replies = await Promise.all(
      Array.from({ length: 30 }, () => call('POST', `${target.path}/webhook-endpoints`, { token: target.adminToken, body })),
    );
    expect(replies.filter((r) => r.status === 201)).toHaveLength(20);
    for (const reply of replies.filter((r) => r.status !== 201)) expectError(reply, 422, { code: 'WEBHOOK_ENDPOINTS_LIMIT_EXCEEDED' });
    expect(
      (await call('POST', `${target.path}/users`, { token: target.adminToken, body: userBody({ email: `${randomUUID()}@x.example` }) }))
        .status,
    ).toBe(201);
  });
});

describe('bearers of an environment', () => {
  it('may not change the account, even as an admin user living in the environment', async () => {
    const code = `hard-${randomUUID().slice(0, 6)}`;
    expect((await admin('POST', '/environments', { data: { type: 'environments', attributes: { name: 'H', code } } })).status).toBe(201);
    const token = (await admin('POST', `/environments/${code}/tokens`, undefined, code)).body.data.attributes.token as string;
    const envAdmin = await newUser(account, { role: 'admin' }, { token, environment: code });
    for (const bearer of [token, envAdmin.token]) {
      const reply = await call('PATCH', account.path, {
        token: bearer,
        environment: code,
        body: { data: { type: 'accounts', attributes: { protected: true } } },
      });
      expectError(reply, 403);
    }
    expect((await admin('GET', '')).body.data.attributes.protected).toBe(false);
  });
});

describe('logins', () => {
  it('limits attempts per address (429 with Retry-After), leaving other addresses alone', async () => {
    // The limit counts per minute (a fixed window): the user's first login and the thirty attempts must not straddle two.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 50_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
    const target = await newAccount();
    const user = await newUser(target);
    const attempt = (password: string, email = user.email) =>
      call('POST', `${target.path}/tokens`, { authorization: basic(email, password) });
    // newUser logged in once already.
    for (let i = 1; i < 30; i++) expect((await attempt(`wrong ${i}`)).status).toBe(401);
    const refused = await attempt(user.password);
    expectError(refused, 429, { code: 'TOO_MANY_REQUESTS' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await attempt(target.adminPassword, target.adminEmail)).status).toBe(201);
  }, 150_000); // up to a window's wait, then thirty password checks (scrypt, by design slow) one after another
});
