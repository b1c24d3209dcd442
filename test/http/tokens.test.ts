/**
 * Tokens (docs/rules.md §14): logging in with HTTP Basic, reading, listing and revoking tokens, and
 * every way a bearer token can be refused (§2.2: TOKEN_MISSING, TOKEN_INVALID, TOKEN_EXPIRED,
 * TOKEN_FORMAT_INVALID).
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { digest } from '#shared/auth/secrets.ts';
import { removeLookup } from '#shared/resources/tokens/service.ts';
import { type Key, recordKey, tokenLookupKey } from '#shared/store/keys.ts';
import { getRecordItem } from '#shared/store/records.ts';
import { Transaction } from '#shared/store/transaction.ts';
import { basic, call, expectError, newAccount, newUser, type TestAccount } from '../support/client.ts';

let account: TestAccount;
let other: TestAccount;
/** Two logged-in users shared by the tests that neither change them nor revoke their first tokens. */
let jane: Awaited<ReturnType<typeof newUser>>;
let john: Awaited<ReturnType<typeof newUser>>;
beforeAll(async () => {
  [account, other] = await Promise.all([newAccount(), newAccount()]);
  [jane, john] = await Promise.all([newUser(account), newUser(account)]);
});

const DAY = 24 * 3600 * 1000;
const login = (email: string, password: string, body?: unknown) =>
  call('POST', `${account.path}/tokens`, { authorization: basic(email, password), body });
const expiryBody = (expiry: string) => ({ data: { type: 'tokens', attributes: { expiry } } });
const asUser = (token: string) => call('GET', `${account.path}/tokens`, { token });

describe.concurrent('POST /tokens (log in with HTTP Basic)', () => {
  it('gives an admin a 201 admin-token whose value is shown once and expires in 14 days', async () => {
    const before = Date.now();
    const reply = await login(account.adminEmail, account.adminPassword);
    expect(reply.status).toBe(201);
    expect(reply.headers.get('content-type')).toBe('application/vnd.api+json');
    const token = reply.body.data;
    expect(token.type).toBe('tokens');
    expect(token.attributes.kind).toBe('admin-token');
    expect(token.attributes.token).toMatch(/^admin-[0-9a-f]{64}$/);
    expect(Math.abs(Date.parse(token.attributes.expiry) - (before + 14 * DAY))).toBeLessThan(60_000);
    expect(token.links.self).toBe(`${account.path}/tokens/${token.id}`);
    expect(token.relationships.bearer.data).toEqual({ type: 'users', id: account.adminId });
    // The value works as a bearer.
    expect((await call('GET', account.path, { token: token.attributes.token })).status).toBe(200);
    // And can never be read again.
    const read = await call('GET', `${account.path}/tokens/${token.id}`, { token: account.adminToken });
    expect(read.status).toBe(200);
    expect(read.body.data.id).toBe(token.id);
    expect(read.body.data.attributes.kind).toBe('admin-token');
    expect(read.body.data.attributes).not.toHaveProperty('token');
    expect(JSON.stringify(read.body)).not.toContain(token.attributes.token);
  });

  it('gives a user a 201 user-token with a user-<64 hex> value expiring in 14 days', async () => {
    const before = Date.now();
    const reply = await login(jane.email, jane.password);
    expect(reply.status).toBe(201);
    expect(reply.body.data.attributes.kind).toBe('user-token');
    expect(reply.body.data.attributes.token).toMatch(/^user-[0-9a-f]{64}$/);
    expect(Math.abs(Date.parse(reply.body.data.attributes.expiry) - (before + 14 * DAY))).toBeLessThan(60_000);
    expect(reply.body.data.relationships.bearer.data).toEqual({ type: 'users', id: jane.id });
    const read = await call('GET', `${account.path}/tokens/${reply.body.data.id}`, { token: jane.token });
    expect(read.status).toBe(200);
    expect(read.body.data.attributes).not.toHaveProperty('token');
  });

  it('gives every login a new, different token', async () => {
    const again = await login(jane.email, jane.password);
    expect(again.status).toBe(201);
    expect(again.body.data.id).not.toBe(jane.tokenId);
    expect(again.body.data.attributes.token).not.toBe(jane.token);
  });

  it('honours an earlier expiry asked for in the body', async () => {
    const expiry = new Date(Date.now() + 3600_000).toISOString();
    const reply = await login(jane.email, jane.password, expiryBody(expiry));
    expect(reply.status).toBe(201);
    expect(Date.parse(reply.body.data.attributes.expiry)).toBe(Date.parse(expiry));
  });

  it('refuses an expiry beyond 14 days with 422 EXPIRY_INVALID', async () => {
    const expiry = new Date(Date.now() + 15 * DAY).toISOString();
    expectError(await login(jane.email, jane.password, expiryBody(expiry)), 422, {
      code: 'EXPIRY_INVALID',
      source: { pointer: '/data/attributes/expiry' },
    });
  });

  it('refuses an expiry in the past with 422 EXPIRY_INVALID', async () => {
    const expiry = new Date(Date.now() - 60_000).toISOString();
    expectError(await login(jane.email, jane.password, expiryBody(expiry)), 422, {
      code: 'EXPIRY_INVALID',
      source: { pointer: '/data/attributes/expiry' },
    });
  });

  it('answers a wrong password and an unknown e-mail with the same 401', async () => {
    const wrong = await login(jane.email, 'not the password');
    const unknown = await login(`nobody-${randomUUID().slice(0, 8)}@users.example`, jane.password);
    const wrongError = expectError(wrong, 401);
    const unknownError = expectError(unknown, 401);
    expect(wrongError).toEqual(unknownError);
    expect(wrong.headers.get('www-authenticate')).toBe(unknown.headers.get('www-authenticate'));
    expect(wrongError.detail).not.toMatch(/password is wrong|no such|not exist|unknown/i);
  });

  it('answers a login without Basic credentials with 401 TOKEN_MISSING and a WWW-Authenticate challenge', async () => {
    const reply = await call('POST', `${account.path}/tokens`);
    expectError(reply, 401, { code: 'TOKEN_MISSING' });
    expect(reply.headers.get('www-authenticate')).toMatch(/^Basic realm="[^"]+"$/);
  });

  it('refuses a banned user logging in', async () => {
    const banned = await newUser(account);
    expect((await call('POST', `${account.path}/users/${banned.id}/actions/ban`, { token: account.adminToken })).status).toBe(200);
    expectError(await login(banned.email, banned.password), 401);
  });
});

describe.concurrent('GET /tokens', () => {
  it("shows an admin every token of the account, other users' included, without values", async () => {
    const reply = await call('GET', `${account.path}/tokens?page[size]=100`, { token: account.adminToken });
    expect(reply.status).toBe(200);
    const ids = reply.body.data.map((t: any) => t.id);
    expect(ids).toContain(jane.tokenId);
    expect(reply.body.data.some((t: any) => t.relationships.bearer.data?.id === account.adminId)).toBe(true);
    expect(reply.body.links.meta.count).toBeGreaterThanOrEqual(2);
    for (const t of reply.body.data) expect(t.attributes).not.toHaveProperty('token');
  });

  it('shows a user only their own tokens, and counts only those', async () => {
    // A user of its own: the other tests log jane in meanwhile, and the count is read after the page.
    const june = await newUser(account);
    const reply = await asUser(june.token);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const ids = reply.body.data.map((t: any) => t.id);
    expect(ids).toContain(june.tokenId);
    expect(ids).not.toContain(john.tokenId);
    for (const t of reply.body.data) {
      expect(t.relationships.bearer.data).toEqual({ type: 'users', id: june.id });
      expect(t.attributes).not.toHaveProperty('token');
    }
    expect(reply.body.links.meta.count).toBe(reply.body.data.length);
    expect(reply.body.links.meta.pages).toBe(1);
    const all = await call('GET', `${account.path}/tokens?page[size]=100`, { token: account.adminToken });
    expect(all.body.links.meta.count).toBeGreaterThan(reply.body.links.meta.count);
  });
});

describe.concurrent('GET /tokens/{id}', () => {
  it("hides another user's token from a user with 404 NOT_FOUND", async () => {
    expectError(await call('GET', `${account.path}/tokens/${john.tokenId}`, { token: jane.token }), 404, { code: 'NOT_FOUND' });
    expectError(await call('GET', `${account.path}/tokens/${john.tokenId}`, { token: jane.token }), 404, { code: 'NOT_FOUND' });
  });

  it("shows an admin a user's token", async () => {
    const reply = await call('GET', `${account.path}/tokens/${jane.tokenId}`, { token: account.adminToken });
    expect(reply.status).toBe(200);
    expect(reply.body.data.relationships.bearer.data).toEqual({ type: 'users', id: jane.id });
  });

  it('answers 404 NOT_FOUND for an unknown token id', async () => {
    expectError(await call('GET', `${account.path}/tokens/${randomUUID()}`, { token: account.adminToken }), 404, { code: 'NOT_FOUND' });
  });
});

describe.concurrent('DELETE /tokens/{id}', () => {
  it('revokes a token: 204, and its value stops working at once', async () => {
    const fresh = await login(jane.email, jane.password);
    expect(fresh.status).toBe(201);
    const value = fresh.body.data.attributes.token;
    const self = () => call('GET', `${account.path}/users/${jane.id}`, { token: value });
    expect((await self()).status).toBe(200);
    const reply = await call('DELETE', `${account.path}/tokens/${fresh.body.data.id}`, { token: value });
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    expectError(await self(), 401, { code: 'TOKEN_INVALID' });
    expectError(await call('GET', `${account.path}/tokens/${fresh.body.data.id}`, { token: account.adminToken }), 404, {
      code: 'NOT_FOUND',
    });
    // The user's other tokens keep working.
    expect((await call('GET', `${account.path}/users/${jane.id}`, { token: jane.token })).status).toBe(200);
  });

  it("lets an admin revoke a user's token", async () => {
    const fresh = await login(jane.email, jane.password);
    expect(fresh.status).toBe(201);
    expect((await call('DELETE', `${account.path}/tokens/${fresh.body.data.id}`, { token: account.adminToken })).status).toBe(204);
    expectError(await call('GET', `${account.path}/users/${jane.id}`, { token: fresh.body.data.attributes.token }), 401, {
      code: 'TOKEN_INVALID',
    });
  });

  it("hides another user's token from a user who tries to revoke it (404), and it keeps working", async () => {
    expectError(await call('DELETE', `${account.path}/tokens/${john.tokenId}`, { token: jane.token }), 404, { code: 'NOT_FOUND' });
    expect((await call('GET', `${account.path}/users/${john.id}`, { token: john.token })).status).toBe(200);
  });
});

describe.concurrent('PUT /tokens/{id} (regenerate)', () => {
  const regenerate = (id: string, token: string) => call('PUT', `${account.path}/tokens/${id}`, { token });

  it('gives a new value, shown once; the old one stops working at once; id, name and permissions stay; its event', async () => {
    const fresh = await login(jane.email, jane.password, { data: { type: 'tokens', attributes: { name: 'laptop' } } });
    const { id } = fresh.body.data;
    const old = fresh.body.data.attributes.token as string;
    const reply = await regenerate(id, old);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const { attributes } = reply.body.data;
    expect(reply.body.data.id).toBe(id);
    expect(attributes.token).toMatch(/^user-[0-9a-f]{64}$/);
    expect(attributes.token).not.toBe(old);
    expect(attributes).toMatchObject({ name: 'laptop', kind: fresh.body.data.attributes.kind });
    // A user token lives 14 days from its regeneration.
    expect(Math.abs(Date.parse(attributes.expiry) - (Date.now() + 14 * DAY))).toBeLessThan(60_000);
    expectError(await call('GET', `${account.path}/users/${jane.id}`, { token: old }), 401, { code: 'TOKEN_INVALID' });
    expect((await call('GET', `${account.path}/users/${jane.id}`, { token: attributes.token })).status).toBe(200);
    const read = await call('GET', `${account.path}/tokens/${id}`, { token: account.adminToken });
    expect(read.body.data.attributes).not.toHaveProperty('token');
  });

  it('administrators regenerate any token; a user only their own (404 for another)', async () => {
    const fresh = await login(john.email, john.password);
    const { id } = fresh.body.data;
    expectError(await regenerate(id, jane.token), 404, { code: 'NOT_FOUND' });
    expect((await call('GET', `${account.path}/users/${john.id}`, { token: fresh.body.data.attributes.token })).status).toBe(200);
    const byAdmin = await regenerate(id, account.adminToken);
    expect(byAdmin.status, JSON.stringify(byAdmin.body)).toBe(200);
    expectError(await call('GET', `${account.path}/users/${john.id}`, { token: fresh.body.data.attributes.token }), 401, {
      code: 'TOKEN_INVALID',
    });
    expect((await call('GET', `${account.path}/users/${john.id}`, { token: byAdmin.body.data.attributes.token })).status).toBe(200);
    expectError(await regenerate(randomUUID(), account.adminToken), 404, { code: 'NOT_FOUND' });
  });

  it('a narrowed credential may not regenerate a wider token (403): it would take its whole credential', async () => {
    const fresh = await login(jane.email, jane.password);
    // A token of the admin's narrowed to reading and regenerating tokens.
    const admin = await login(account.adminEmail, account.adminPassword);
    const narrow = await call('POST', `${account.path}/users/${account.adminId}/tokens`, {
      token: admin.body.data.attributes.token,
      body: { data: { type: 'tokens', attributes: { permissions: ['token.read', 'token.regenerate'] } } },
    });
    expect(narrow.status, JSON.stringify(narrow.body)).toBe(200);
    expectError(await regenerate(fresh.body.data.id, narrow.body.data.attributes.token), 403);
    expect((await call('GET', `${account.path}/users/${jane.id}`, { token: fresh.body.data.attributes.token })).status).toBe(200);
    // It may regenerate itself: it holds all it carries.
    expect((await regenerate(narrow.body.data.id, narrow.body.data.attributes.token)).status).toBe(200);
  });

  it('a revocation that read the token before a regeneration fails (409) rather than leave the new value working', async () => {
    const fresh = await login(jane.email, jane.password);
    const { id } = fresh.body.data;
    // What a revocation read, then a regeneration lands before it writes: the race, made in order.
    const read = await getRecordItem(account.id, 'tokens', id);
    const regenerated = await regenerate(id, account.adminToken);
    expect(regenerated.status).toBe(200);
    const tx = new Transaction();
    tx.delete(read!);
    removeLookup(tx, read as never);
    await expect(tx.commit()).rejects.toThrow(/regenerated meanwhile/);
    // Nothing was removed: the new value works, and a revocation now ends it.
    const value = regenerated.body.data.attributes.token;
    expect((await call('GET', `${account.path}/users/${jane.id}`, { token: value })).status).toBe(200);
    expect((await call('DELETE', `${account.path}/tokens/${id}`, { token: account.adminToken })).status).toBe(204);
    expectError(await call('GET', `${account.path}/users/${jane.id}`, { token: value }), 401, { code: 'TOKEN_INVALID' });
  });

  it('10 concurrent regenerations of one token: each 200 or 409, and only the value of the last to land works', async () => {
    const fresh = await login(jane.email, jane.password);
    const { id } = fresh.body.data;
    const replies = await Promise.all(Array.from({ length: 10 }, () => regenerate(id, account.adminToken)));
    for (const reply of replies) if (reply.status !== 200) expectError(reply, 409, { code: 'CONFLICT' });
    const values = [fresh.body.data.attributes.token, ...replies.filter((r) => r.status === 200).map((r) => r.body.data.attributes.token)];
    expect(values.length).toBeGreaterThan(1);
    // A regeneration lands only on the value it read: exactly one value of all given works.
    const statuses = await Promise.all(
      values.map(async (token) => (await call('GET', `${account.path}/users/${jane.id}`, { token })).status),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 401)).toHaveLength(values.length - 1);
  });
});

describe.concurrent('refused bearer tokens', () => {
  it('refuses a token past its expiry with 401 TOKEN_EXPIRED', async () => {
    const short = await login(jane.email, jane.password, expiryBody(new Date(Date.now() + 3600_000).toISOString()));
    expect(short.status).toBe(201);
    const value = short.body.data.attributes.token;
    expect((await call('GET', `${account.path}/users/${jane.id}`, { token: value })).status).toBe(200);
    // Its expiry passes: written into the table (the record and the lookup authentication reads).
    const past = new Date(Date.now() - 1000).toISOString();
    const documents = DynamoDBDocumentClient.from(new DynamoDBClient({}));
    const expire = (Key: Key) =>
      documents.send(
        new UpdateCommand({
          TableName: process.env.TABLE_NAME,
          Key,
          UpdateExpression: 'SET expiry = :past',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':past': past },
        }),
      );
    await Promise.all([expire(recordKey(account.id, 'tokens', short.body.data.id)), expire(tokenLookupKey(digest(value)))]);
    expectError(await call('GET', `${account.path}/users/${jane.id}`, { token: value }), 401, { code: 'TOKEN_EXPIRED' });
  });

  it('refuses a token of another account with 401 TOKEN_INVALID', async () => {
    const reply = await call('GET', account.path, { token: other.adminToken });
    expectError(reply, 401, { code: 'TOKEN_INVALID' });
    expectError(await call('GET', `${account.path}/users`, { token: other.adminToken }), 401, { code: 'TOKEN_INVALID' });
  });

  it('refuses an unknown token of the right shape with 401 TOKEN_INVALID', async () => {
    expectError(await call('GET', account.path, { token: `admin-${'0'.repeat(64)}` }), 401, { code: 'TOKEN_INVALID' });
  });

  it('refuses a UUID (a token id sent by mistake) with 401 TOKEN_FORMAT_INVALID', async () => {
    expectError(await call('GET', `${account.path}/tokens`, { token: jane.tokenId }), 401, { code: 'TOKEN_FORMAT_INVALID' });
    expectError(await call('GET', `${account.path}/tokens`, { token: randomUUID() }), 401, { code: 'TOKEN_FORMAT_INVALID' });
  });

  it('answers a request with no Authorization with 401 TOKEN_MISSING and WWW-Authenticate: Bearer realm=...', async () => {
    for (const path of [account.path, `${account.path}/users`, `${account.path}/tokens`]) {
      const reply = await call('GET', path);
      expectError(reply, 401, { code: 'TOKEN_MISSING' });
      expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer realm="[^"]+"$/);
    }
  });

  it('treats Basic credentials on a bearer route as missing a token', async () => {
    const reply = await call('GET', `${account.path}/users`, { authorization: basic(account.adminEmail, account.adminPassword) });
    expectError(reply, 401, { code: 'TOKEN_MISSING' });
    expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer realm="[^"]+"$/);
  });
});
