/**
 * The cross-cutting rules of docs/rules.md §1–2: unknown routes, media types, JSON, the environment
 * header, the error document, the order in which checks are made, and that a failed request
 * changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { basic, call, expectError, newAccount, newUser, type Reply, type TestAccount, userBody } from '../support/client.ts';
import { api } from '../support/stack.ts';

let account: TestAccount;
/** An account no other test writes to while the count-based tests run. */
let quiet: TestAccount;
let user: Awaited<ReturnType<typeof newUser>>;
beforeAll(async () => {
  [account, quiet] = await Promise.all([newAccount(), newAccount()]);
  user = await newUser(account);
});

const email = () => `${randomUUID().slice(0, 8)}@errors.example`;
/**
 * A raw request, for media types and bodies the JSON client would not send. The body goes as
 * bytes so that fetch adds no Content-Type of its own.
 */
async function raw(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  const response = await api(path, { method, headers, body: body === undefined ? undefined : new TextEncoder().encode(body) });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed };
}
const count = async (target: TestAccount) => {
  const reply = await call('GET', `${target.path}/users`, { token: target.adminToken });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.links.meta.count as number;
};

describe.concurrent('unknown routes (404 NOT_FOUND)', () => {
  it('answers an unknown path under an account', async () => {
    for (const path of [
      `${account.path}/nothing`,
      `${account.path}/users/${user.id}/nothing`,
      `${account.path}/users/${user.id}/actions/explode`,
    ]) {
      expectError(await call('GET', path, { token: account.adminToken }), 404, { code: 'NOT_FOUND' });
    }
  });

  it('answers an unknown method on a known path', async () => {
    const requests: Array<[string, string]> = [
      ['PUT', `${account.path}/users/${user.id}`],
      ['DELETE', `${account.path}/users`],
      ['PATCH', `${account.path}/tokens`],
      ['POST', account.path],
      ['DELETE', account.path],
      ['GET', `${account.path}/users/${user.id}/actions/ban`],
    ];
    for (const [method, path] of requests) {
      const reply = await call(method, path, { token: account.adminToken });
      expect(reply.status, `${method} ${path}`).toBe(404);
      expectError(reply, 404, { code: 'NOT_FOUND' });
    }
  });

  it('answers paths outside /v1', async () => {
    for (const path of ['/', '/v1', '/v2/accounts/x', '/accounts/x', `/v1/accounts`, '/favicon.ico']) {
      const reply = await call('GET', path);
      expect(reply.status, path).toBe(404);
      expectError(reply, 404, { code: 'NOT_FOUND' });
    }
  });
});

describe.concurrent('media types', () => {
  it('refuses a body sent as text/plain with 400 MIME_TYPE_INVALID, creating nothing', async () => {
    const address = email();
    const reply = await raw(
      'POST',
      `${account.path}/users`,
      { authorization: `Bearer ${account.adminToken}`, accept: 'application/vnd.api+json', 'content-type': 'text/plain' },
      JSON.stringify(userBody({ email: address, password: 'a long password' })),
    );
    expectError(reply, 400, { code: 'MIME_TYPE_INVALID' });
    expect((await call('POST', `${account.path}/tokens`, { authorization: basic(address, 'a long password') })).status).toBe(401);
  });

  it('refuses Accept: text/html with 400 MIME_TYPE_INVALID', async () => {
    const reply = await raw('GET', account.path, { authorization: `Bearer ${account.adminToken}`, accept: 'text/html' });
    expectError(reply, 400, { code: 'MIME_TYPE_INVALID' });
  });

  it('accepts application/json as Content-Type and as Accept, answering application/vnd.api+json', async () => {
    const reply = await raw(
      'POST',
      `${account.path}/users`,
      { authorization: `Bearer ${account.adminToken}`, accept: 'application/json', 'content-type': 'application/json' },
      JSON.stringify(userBody({ email: email() })),
    );
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.headers.get('content-type')).toBe('application/vnd.api+json');
  });

  it('accepts application/vnd.api+json, */* and a missing Accept', async () => {
    for (const accept of ['application/vnd.api+json', '*/*', 'text/html, application/json;q=0.9']) {
      const reply = await raw('GET', account.path, { authorization: `Bearer ${account.adminToken}`, accept });
      expect(reply.status, accept).toBe(200);
    }
    const none = await raw('GET', account.path, { authorization: `Bearer ${account.adminToken}` });
    expect(none.status).toBe(200);
    expect(none.headers.get('content-type')).toBe('application/vnd.api+json');
  });

  it('reads a body with no Content-Type as JSON', async () => {
    const reply = await raw(
      'POST',
      `${account.path}/users`,
      { authorization: `Bearer ${account.adminToken}` },
      JSON.stringify(userBody({ email: email() })),
    );
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  });

  it('refuses a body that is not valid JSON with 400 JSON_INVALID', async () => {
    const reply = await call('POST', `${account.path}/users`, {
      token: account.adminToken,
      raw: '{"data": {"type": "users",',
      headers: { 'content-type': 'application/vnd.api+json' },
    });
    expectError(reply, 400, { code: 'JSON_INVALID' });
    const patch = await call('PATCH', `${account.path}/users/${user.id}`, {
      token: account.adminToken,
      raw: 'not json',
      headers: { 'content-type': 'application/json' },
    });
    expectError(patch, 400, { code: 'JSON_INVALID' });
  });
});

describe.concurrent('environment selection (400 ENVIRONMENT_INVALID)', () => {
  const environmentError = { code: 'ENVIRONMENT_INVALID', source: { header: 'Service-Environment' } };

  it('refuses a blank Service-Environment header', async () => {
    for (const environment of ['', '   ']) {
      expectError(await call('GET', `${account.path}/users`, { token: account.adminToken, environment }), 400, environmentError);
    }
  });

  it('refuses an unknown Service-Environment header, by code or by id', async () => {
    for (const environment of ['no-such-environment', randomUUID()]) {
      expectError(await call('GET', `${account.path}/users`, { token: account.adminToken, environment }), 400, environmentError);
    }
  });

  it('refuses a blank or unknown ?environment=, naming the header', async () => {
    for (const query of ['environment=', 'environment=no-such-environment']) {
      expectError(await call('GET', `${account.path}/users/${user.id}?${query}`, { token: account.adminToken }), 400, environmentError);
    }
  });

  it('refuses an unknown environment on the login route too', async () => {
    const reply = await call('POST', `${account.path}/tokens`, { authorization: basic(user.email, user.password), environment: 'nowhere' });
    expectError(reply, 400, environmentError);
  });
});

describe.concurrent('order of checks: account, environment, authentication, body shape, visibility, permission, model rules', () => {
  const unknownAccount = `/v1/accounts/${randomUUID()}`;

  it('reports an unknown account before a bad environment', async () => {
    expectError(await call('GET', `${unknownAccount}/users`, { environment: 'nowhere' }), 404, { code: 'NOT_FOUND' });
    expectError(await call('GET', `${unknownAccount}/users?environment=`, { token: account.adminToken }), 404, { code: 'NOT_FOUND' });
  });

  it('reports a bad environment before a missing or invalid token', async () => {
    const environmentError = { code: 'ENVIRONMENT_INVALID', source: { header: 'Service-Environment' } };
    expectError(await call('GET', `${account.path}/users`, { environment: 'nowhere' }), 400, environmentError);
    expectError(await call('GET', `${account.path}/users`, { environment: '', token: `user-${'f'.repeat(64)}` }), 400, environmentError);
  });

  it('reports a missing token before an unknown record, a forbidden action or a bad body', async () => {
    expectError(await call('GET', `${account.path}/users/${randomUUID()}`), 401, { code: 'TOKEN_MISSING' });
    expectError(await call('DELETE', `${account.path}/users/${account.adminId}`), 401, { code: 'TOKEN_MISSING' });
    expectError(
      await call('POST', `${account.path}/users`, { raw: '{not json', headers: { 'content-type': 'application/vnd.api+json' } }),
      401,
      { code: 'TOKEN_MISSING' },
    );
    expectError(await call('POST', `${account.path}/users`, { token: `user-${'0'.repeat(64)}`, body: userBody({}) }), 401, {
      code: 'TOKEN_INVALID',
    });
  });

  it('reports an unseen record (404) before a forbidden action (403)', async () => {
    const other = await newUser(account);
    expectError(await call('DELETE', `${account.path}/users/${other.id}`, { token: user.token }), 404, { code: 'NOT_FOUND' });
    expectError(await call('PATCH', `${account.path}/users/${other.id}`, { token: user.token, body: userBody({ role: 'admin' }) }), 404, {
      code: 'NOT_FOUND',
    });
    expectError(await call('POST', `${account.path}/users/${other.id}/actions/ban`, { token: user.token }), 404, { code: 'NOT_FOUND' });
  });

  it('reports a bad body (400) before an unseen record (404) or a forbidden action (403): the request is parsed first', async () => {
    const other = await newUser(account);
    const malformed = { raw: '{not json', headers: { 'content-type': 'application/vnd.api+json' } };
    expectError(await call('POST', `${account.path}/users`, { token: user.token, ...malformed }), 400, { code: 'JSON_INVALID' });
    const wrongType = { data: { type: 'nope' } };
    const create = await call('POST', `${account.path}/users`, { token: user.token, body: wrongType });
    expectError(create, 400, { source: { pointer: '/data/type' } });
    const notBoolean = { data: { type: 'accounts', attributes: { protected: 'yes' } } };
    const update = await call('PATCH', account.path, { token: user.token, body: notBoolean });
    expectError(update, 400, { source: { pointer: '/data/attributes/protected' } });
    expectError(await call('PATCH', `${account.path}/users/${other.id}`, { token: user.token, body: userBody({ role: 5 }) }), 400, {
      source: { pointer: '/data/attributes/role' },
    });
  });

  it('reports a bad body shape (400) before a broken model rule (422)', async () => {
    expectError(
      await call('POST', `${account.path}/users`, { token: account.adminToken, body: userBody({ email: 'not-an-email', nickname: 'x' }) }),
      400,
      {
        source: { pointer: '/data/attributes/nickname' },
      },
    );
    expectError(
      await call('POST', `${account.path}/users`, { token: account.adminToken, body: userBody({ email: user.email, password: 5 }) }),
      400,
      {
        source: { pointer: '/data/attributes/password' },
      },
    );
    expectError(
      await call('PATCH', `${account.path}/users/${user.id}`, {
        token: account.adminToken,
        body: userBody({ role: 'owner', extra: true }),
      }),
      400,
      {
        source: { pointer: '/data/attributes/extra' },
      },
    );
  });
});

describe('a failed request changes nothing', () => {
  it('leaves a user unchanged after a 400 on PATCH', async () => {
    const jane = await newUser(quiet, { firstName: 'Before', metadata: { keep: true } });
    const reply = await call('PATCH', `${quiet.path}/users/${jane.id}`, {
      token: quiet.adminToken,
      body: userBody({ firstName: 'After', metadata: { keep: false }, unknown: 1 }),
    });
    expectError(reply, 400, { source: { pointer: '/data/attributes/unknown' } });
    const read = await call('GET', `${quiet.path}/users/${jane.id}`, { token: quiet.adminToken });
    expect(read.body.data.attributes).toMatchObject({ firstName: 'Before', metadata: { keep: true } });
    expect(read.body.data.attributes.updated).toBe(jane.user.attributes.updated);
  });

  it('leaves a user unchanged after a 422 on PATCH, even for the valid attributes sent with it', async () => {
    const [jane, john] = await Promise.all([newUser(quiet, { firstName: 'Before' }), newUser(quiet)]);
    const reply = await call('PATCH', `${quiet.path}/users/${jane.id}`, {
      token: quiet.adminToken,
      body: userBody({ firstName: 'After', password: 'a different password', email: john.email.toUpperCase() }),
    });
    expectError(reply, 422, { code: 'EMAIL_TAKEN', source: { pointer: '/data/attributes/email' } });
    const read = await call('GET', `${quiet.path}/users/${jane.id}`, { token: quiet.adminToken });
    expect(read.body.data.attributes).toMatchObject({ firstName: 'Before', email: jane.email });
    expect((await call('POST', `${quiet.path}/tokens`, { authorization: basic(jane.email, jane.password) })).status).toBe(201);
    expect((await call('POST', `${quiet.path}/tokens`, { authorization: basic(jane.email, 'a different password') })).status).toBe(401);
  });

  it('adds no user after a 422 EMAIL_TAKEN on create (links.meta.count unchanged)', async () => {
    const jane = await newUser(quiet);
    const before = await count(quiet);
    const reply = await call('POST', `${quiet.path}/users`, {
      token: quiet.adminToken,
      body: userBody({ email: jane.email.toUpperCase(), password: 'another password' }),
    });
    expectError(reply, 422, { code: 'EMAIL_TAKEN', source: { pointer: '/data/attributes/email' } });
    expect(await count(quiet)).toBe(before);
    expect((await call('POST', `${quiet.path}/tokens`, { authorization: basic(jane.email, 'another password') })).status).toBe(401);
  });

  it('adds no user after a 400 or a 422 of another rule on create', async () => {
    const before = await count(quiet);
    const address = email();
    expectError(
      await call('POST', `${quiet.path}/users`, { token: quiet.adminToken, body: userBody({ email: address, password: 'short' }) }),
      422,
      { code: 'PASSWORD_TOO_SHORT' },
    );
    expectError(
      await call('POST', `${quiet.path}/users`, { token: quiet.adminToken, body: userBody({ email: address, surprise: 1 }) }),
      400,
    );
    expect(await count(quiet)).toBe(before);
    // The address was never claimed.
    expect((await call('POST', `${quiet.path}/users`, { token: quiet.adminToken, body: userBody({ email: address }) })).status).toBe(201);
    expect(await count(quiet)).toBe(before + 1);
  });
});

describe.concurrent('request ids', () => {
  it('gives every response an X-Request-Id, the same as an error document meta.id', async () => {
    const ok = await call('GET', account.path, { token: account.adminToken });
    expect(ok.status).toBe(200);
    const okId = ok.headers.get('x-request-id');
    expect(okId).toMatch(/\S+/);
    const failures = await Promise.all([
      call('GET', `${account.path}/users/${randomUUID()}`, { token: account.adminToken }),
      call('GET', account.path),
      call('GET', `/v1/accounts/${randomUUID()}`),
      call('GET', '/nowhere'),
      call('GET', `${account.path}/users?page[size]=0`, { token: account.adminToken }),
    ]);
    const ids = new Set([okId]);
    for (const reply of failures) {
      expect(reply.status).toBeGreaterThanOrEqual(400);
      expect(reply.headers.get('x-request-id')).toBe(reply.body.meta.id);
      ids.add(reply.body.meta.id);
    }
    expect(ids.size).toBe(failures.length + 1);
  });
});
