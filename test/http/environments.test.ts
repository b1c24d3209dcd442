/**
 * Environments (docs/rules.md §2, §4–5, §15):
 * the resource itself (create, retrieve by UUID or code, update, list, delete), its model rules,
 * environment tokens, who may manage environments, and how a request selects its environment
 * (Service-Environment header, ?environment= query parameter).
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount, newUser, onlyError, type Reply, type TestAccount, userBody } from '../support/client.ts';

let account: TestAccount;
beforeAll(async () => {
  account = await newAccount();
});

const envBody = (attributes: Record<string, unknown>) => ({ data: { type: 'environments', attributes } });
/** A code nobody else in the account uses. */
const freshCode = (prefix = 'env') => `${prefix}-${randomUUID().slice(0, 8)}`;

const admin = (method: string, path: string, options: Parameters<typeof call>[2] = {}) =>
  call(method, `${account.path}${path}`, { token: account.adminToken, ...options });

async function createEnv(attributes: Record<string, unknown> = {}, a: TestAccount = account) {
  const code = (attributes.code as string) ?? freshCode();
  const reply = await call('POST', `${a.path}/environments`, {
    token: a.adminToken,
    body: envBody({ name: `Env ${code}`, code, ...attributes }),
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.data as { id: string; attributes: { code: string; name: string; isolationStrategy: string } };
}

async function envToken(code: string, attributes?: Record<string, unknown>, a: TestAccount = account) {
  const reply = await call('POST', `${a.path}/environments/${code}/tokens`, {
    token: a.adminToken,
    environment: code,
    ...(attributes ? { body: { data: { type: 'tokens', attributes } } } : {}),
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data.attributes.token as string;
}

/** The single error of an error reply, after checking status and the error document's shape. */
function expectError(reply: Reply, status: number, expected: { code?: string; pointer?: string; header?: string; detail?: RegExp } = {}) {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.body?.meta?.id, 'error documents carry meta.id').toEqual(expect.any(String));
  const error = onlyError(reply);
  if ('code' in expected) expect(error.code, JSON.stringify(reply.body)).toBe(expected.code);
  if (expected.pointer) expect(error.source, JSON.stringify(reply.body)).toEqual({ pointer: expected.pointer });
  if (expected.header) expect(error.source, JSON.stringify(reply.body)).toEqual({ header: expected.header });
  if (expected.detail) expect(error.detail).toMatch(expected.detail);
  return error;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

describe.concurrent('create, retrieve, update, list, delete', () => {
  it('creates an environment: 201, attributes, default ISOLATED, account relationship, links.self', async () => {
    const code = freshCode('create');
    const reply = await admin('POST', '/environments', { body: envBody({ name: 'Staging', code }) });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.headers.get('content-type')).toBe('application/vnd.api+json');
    const env = reply.body.data;
    expect(env.type).toBe('environments');
    expect(env.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(env.attributes).toMatchObject({ name: 'Staging', code, isolationStrategy: 'ISOLATED' });
    expect(env.attributes.created).toMatch(ISO);
    expect(env.attributes.updated).toMatch(ISO);
    expect(env.relationships.account.data).toEqual({ type: 'accounts', id: account.id });
    expect(env.links.self).toBe(`/v1/accounts/${account.id}/environments/${env.id}`);
    // A global request: no Service-Environment echoed.
    expect(reply.headers.get('service-environment')).toBeNull();
  });

  it('creates a SHARED environment when asked', async () => {
    const env = await createEnv({ isolationStrategy: 'SHARED' });
    expect(env.attributes.isolationStrategy).toBe('SHARED');
  });

  it('retrieves by UUID and by code in any case', async () => {
    const code = freshCode('Mixed');
    const env = await createEnv({ code });
    for (const id of [env.id, env.id.toUpperCase(), code, code.toLowerCase(), code.toUpperCase()]) {
      const reply = await admin('GET', `/environments/${id}`);
      expect(reply.status, `${id}: ${JSON.stringify(reply.body)}`).toBe(200);
      expect(reply.body.data.id).toBe(env.id);
      expect(reply.body.data.attributes.code).toBe(code);
    }
    expectError(await admin('GET', `/environments/${randomUUID()}`), 404, { code: 'NOT_FOUND' });
    expectError(await admin('GET', `/environments/no-such-${randomUUID().slice(0, 6)}`), 404, { code: 'NOT_FOUND' });
  });

  it('updates name and code; the old code then stops selecting the environment, the new one works', async () => {
    const oldCode = freshCode('old');
    const newCode = freshCode('new');
    const env = await createEnv({ code: oldCode, name: 'Before' });
    const before = (await admin('GET', `/environments/${env.id}`)).body.data;
    await new Promise((r) => setTimeout(r, 5));
    const reply = await admin('PATCH', `/environments/${oldCode}`, { body: envBody({ name: 'After', code: newCode }) });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data.id).toBe(env.id);
    expect(reply.body.data.attributes).toMatchObject({ name: 'After', code: newCode, isolationStrategy: 'ISOLATED' });
    expect(reply.body.data.attributes.created).toBe(before.attributes.created);
    expect(Date.parse(reply.body.data.attributes.updated)).toBeGreaterThanOrEqual(Date.parse(before.attributes.updated));

    expectError(await admin('GET', '/users', { environment: oldCode }), 400, {
      code: 'ENVIRONMENT_INVALID',
      header: 'Service-Environment',
    });
    expectError(await admin('GET', `/environments/${oldCode}`), 404, { code: 'NOT_FOUND' });
    const works = await admin('GET', '/users', { environment: newCode });
    expect(works.status, JSON.stringify(works.body)).toBe(200);
    expect(works.headers.get('service-environment')).toBe(newCode);
    expect((await admin('GET', `/environments/${newCode}`)).body.data.id).toBe(env.id);
    // The old code is free again.
    await createEnv({ code: oldCode });
  });

  it('updates only what is sent; omitted attributes are unchanged', async () => {
    const env = await createEnv({ isolationStrategy: 'SHARED', name: 'Keep' });
    const reply = await admin('PATCH', `/environments/${env.id}`, { body: envBody({ name: 'Renamed' }) });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data.attributes).toMatchObject({ name: 'Renamed', code: env.attributes.code, isolationStrategy: 'SHARED' });
    // Same code in another case: allowed, it is its own code.
    const recase = await admin('PATCH', `/environments/${env.id}`, { body: envBody({ code: env.attributes.code.toUpperCase() }) });
    expect(recase.status, JSON.stringify(recase.body)).toBe(200);
    expect(recase.body.data.attributes.code).toBe(env.attributes.code.toUpperCase());
  });

  it('a PATCH by code may repeat the environment id as data.id; any other id, the code included, is 409 ID_MISMATCH', async () => {
    const env = await createEnv({ name: 'Named' });
    const code = env.attributes.code;
    const patch = (id: string, name: string) =>
      admin('PATCH', `/environments/${code}`, { body: { data: { type: 'environments', id, attributes: { name } } } });

    for (const id of [env.id, env.id.toUpperCase()]) {
      const reply = await patch(id, `By id ${id}`);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.data.attributes.name).toBe(`By id ${id}`);
    }
    for (const id of [code, randomUUID()]) {
      expectError(await patch(id, 'Refused'), 409, { code: 'ID_MISMATCH', pointer: '/data/id' });
    }
    expect((await admin('GET', `/environments/${env.id}`)).body.data.attributes.name).toBe(`By id ${env.id.toUpperCase()}`);
    // By UUID just the same.
    expectError(
      await admin('PATCH', `/environments/${env.id}`, { body: { data: { type: 'environments', id: randomUUID(), attributes: {} } } }),
      409,
      { code: 'ID_MISMATCH', pointer: '/data/id' },
    );
  });

  it('refuses isolationStrategy on PATCH: 400 unpermitted parameter, nothing changes', async () => {
    const env = await createEnv();
    const error = expectError(
      await admin('PATCH', `/environments/${env.id}`, { body: envBody({ name: 'Changed', isolationStrategy: 'SHARED' }) }),
      400,
      { pointer: '/data/attributes/isolationStrategy' },
    );
    expect(error.detail).toBe('unpermitted parameter');
    const after = (await admin('GET', `/environments/${env.id}`)).body.data;
    expect(after.attributes.isolationStrategy).toBe('ISOLATED');
    expect(after.attributes.name).toBe(env.attributes.name);
  });

  it('PATCH to a code another environment holds (any case) → 422 CODE_TAKEN', async () => {
    const a = await createEnv();
    const b = await createEnv();
    expectError(await admin('PATCH', `/environments/${b.id}`, { body: envBody({ code: a.attributes.code.toUpperCase() }) }), 422, {
      code: 'CODE_TAKEN',
      pointer: '/data/attributes/code',
    });
    expect((await admin('GET', `/environments/${b.id}`)).body.data.attributes.code).toBe(b.attributes.code);
  });

  it('deletes: 204 with no body, then 404', async () => {
    const env = await createEnv();
    const reply = await admin('DELETE', `/environments/${env.id}`);
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    expectError(await admin('GET', `/environments/${env.id}`), 404, { code: 'NOT_FOUND' });
    expectError(await admin('GET', `/environments/${env.attributes.code}`), 404, { code: 'NOT_FOUND' });
    expectError(await admin('DELETE', `/environments/${env.id}`), 404, { code: 'NOT_FOUND' });
    expectError(await admin('PATCH', `/environments/${env.id}`, { body: envBody({ name: 'x' }) }), 404, { code: 'NOT_FOUND' });
  });

  it('deletes by code', async () => {
    const env = await createEnv();
    expect((await admin('DELETE', `/environments/${env.attributes.code.toUpperCase()}`)).status).toBe(204);
    expectError(await admin('GET', `/environments/${env.id}`), 404, { code: 'NOT_FOUND' });
  });

  it('lists newest first, paginated, with links.meta.count and pages', async () => {
    const own = await newAccount();
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await createEnv({ code: `list-${i}` }, own)).id);
    const first = await call('GET', `${own.path}/environments?page[size]=2&page[number]=1`, { token: own.adminToken });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data.map((e: any) => e.id)).toEqual([made[2], made[1]]);
    expect(first.body.links.meta).toEqual({ pages: 2, count: 3 });
    expect(first.body.links.next).toEqual(expect.stringContaining('/v1/'));
    expect(first.body.links.prev).toBeNull();
    const second = await call('GET', `${own.path}/environments?page[size]=2&page[number]=2`, { token: own.adminToken });
    expect(second.body.data.map((e: any) => e.id)).toEqual([made[0]]);
    expect(second.body.links.next).toBeNull();
    const all = await call('GET', `${own.path}/environments`, { token: own.adminToken });
    expect(all.body.data.map((e: any) => e.id)).toEqual([...made].reverse());
    expect(all.body.data[0].type).toBe('environments');
    const limited = await call('GET', `${own.path}/environments?limit=1`, { token: own.adminToken });
    expect(limited.body.data.map((e: any) => e.id)).toEqual([made[2]]);
    expect(limited.body.links.meta).toEqual({ pages: 3, count: 3 });
    // Deleted environments leave the list and its count at once.
    expect((await call('DELETE', `${own.path}/environments/${made[1]}`, { token: own.adminToken })).status).toBe(204);
    const after = await call('GET', `${own.path}/environments`, { token: own.adminToken });
    expect(after.body.data.map((e: any) => e.id)).toEqual([made[2], made[0]]);
    expect(after.body.links.meta.count).toBe(2);
    // Out of range page size.
    const bad = await call('GET', `${own.path}/environments?page[size]=101`, { token: own.adminToken });
    expectError(bad, 400);
    expect(onlyError(bad).source).toEqual({ parameter: 'page[size]' });
  });
});

describe.concurrent('model rules on create', () => {
  const create = (attributes: Record<string, unknown>) => admin('POST', '/environments', { body: envBody(attributes) });

  it('CODE_TAKEN: a code another environment holds, in any case', async () => {
    const code = freshCode('Taken');
    await createEnv({ code });
    for (const again of [code, code.toLowerCase(), code.toUpperCase()]) {
      expectError(await create({ name: 'Dup', code: again }), 422, { code: 'CODE_TAKEN', pointer: '/data/attributes/code' });
    }
  });

  it('of 10 concurrent creates with one code exactly one wins; the rest get 422 CODE_TAKEN', async () => {
    const code = freshCode('race');
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create({ name: `Race ${i}`, code: i % 2 ? code : code.toUpperCase() })),
    );
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses, JSON.stringify(replies.map((r) => r.body))).toEqual([201, 422, 422, 422, 422, 422, 422, 422, 422, 422]);
    for (const r of replies.filter((r) => r.status === 422)) expect(onlyError(r).code).toBe('CODE_TAKEN');
    const winner = replies.find((r) => r.status === 201)!.body.data;
    expect((await admin('GET', `/environments/${code}`)).body.data.id).toBe(winner.id);
  });

  it('CODE_INVALID: a code that looks like a UUID, or has characters outside letters, digits, ".", "_", "-"', async () => {
    for (const code of [randomUUID(), randomUUID().toUpperCase(), 'has space', 'slash/code', 'q?x', 'hash#1', 'ünïcode', 'a&b']) {
      expectError(await create({ name: 'Bad', code }), 422, { code: 'CODE_INVALID', pointer: '/data/attributes/code' });
    }
    // The whole alphabet is fine.
    const ok = await create({ name: 'Good', code: `Ab9.x_y-${randomUUID().slice(0, 4)}` });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });

  it('CODE_NOT_ALLOWED: the reserved codes actions and action', async () => {
    for (const code of ['actions', 'action']) {
      expectError(await create({ name: 'Reserved', code }), 422, { code: 'CODE_NOT_ALLOWED', pointer: '/data/attributes/code' });
    }
  });

  it('NAME_TOO_LONG and CODE_TOO_LONG at 256 characters; 255 is accepted', async () => {
    expectError(await create({ name: 'n'.repeat(256), code: freshCode() }), 422, {
      code: 'NAME_TOO_LONG',
      pointer: '/data/attributes/name',
    });
    expectError(await create({ name: 'ok', code: 'c'.repeat(256) }), 422, { code: 'CODE_TOO_LONG', pointer: '/data/attributes/code' });
    const longCode = `${randomUUID().slice(0, 8)}${'c'.repeat(247)}`;
    const ok = await create({ name: 'n'.repeat(255), code: longCode });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect((await admin('GET', `/environments/${longCode}`)).status).toBe(200);
  });

  it('ISOLATION_STRATEGY_NOT_ALLOWED: anything but ISOLATED or SHARED', async () => {
    for (const isolationStrategy of ['PRIVATE', 'isolated', '']) {
      expectError(await create({ name: 'x', code: freshCode(), isolationStrategy }), 422, {
        code: 'ISOLATION_STRATEGY_NOT_ALLOWED',
        pointer: '/data/attributes/isolationStrategy',
      });
    }
  });

  it('missing name or code → 400 "is missing" with the pointer; blank → 400 "cannot be blank"', async () => {
    const noName = expectError(await create({ code: freshCode() }), 400, { pointer: '/data/attributes/name' });
    expect(noName.detail).toBe('is missing');
    const noCode = expectError(await create({ name: 'x' }), 400, { pointer: '/data/attributes/code' });
    expect(noCode.detail).toBe('is missing');
    const blank = expectError(await create({ name: 'x', code: '  ' }), 400, { pointer: '/data/attributes/code' });
    expect(blank.detail).toBe('cannot be blank');
    const noBody = expectError(await admin('POST', '/environments'), 400);
    expect(noBody.source).toEqual({ pointer: '/data' });
    const wrongType = expectError(
      await admin('POST', '/environments', { body: { data: { type: 'users', attributes: { name: 'x', code: freshCode() } } } }),
      400,
    );
    expect(wrongType.source).toEqual({ pointer: '/data/type' });
  });

  it('a failed create changes nothing', async () => {
    const own = await newAccount();
    await call('POST', `${own.path}/environments`, { token: own.adminToken, body: envBody({ name: 'x', code: 'actions' }) });
    await call('POST', `${own.path}/environments`, { token: own.adminToken, body: envBody({ name: 'n'.repeat(300), code: 'fine' }) });
    const list = await call('GET', `${own.path}/environments`, { token: own.adminToken });
    expect(list.body.data).toEqual([]);
    expect(list.body.links.meta.count).toBe(0);
    // The code of the refused create was not claimed.
    expect(
      (await call('POST', `${own.path}/environments`, { token: own.adminToken, body: envBody({ name: 'x', code: 'fine' }) })).status,
    ).toBe(201);
  });
});

describe.concurrent('who may manage environments', () => {
  it('only global admins: an admin user made inside an environment, environment tokens and users get 403 on every route', async () => {
    const env = await createEnv({ isolationStrategy: 'SHARED' });
    const code = env.attributes.code;
    const token = await envToken(code);
    const envAdmin = await newUser(account, { role: 'admin' }, { environment: code, token });
    const globalUser = await newUser(account);
    const envUser = await newUser(account, {}, { environment: code, token });
    const routes: [string, string, unknown?][] = [
      ['POST', '/environments', envBody({ name: 'x', code: freshCode() })],
      ['GET', '/environments'],
      ['GET', `/environments/${env.id}`],
      ['PATCH', `/environments/${env.id}`, envBody({ name: 'hijacked' })],
      ['DELETE', `/environments/${env.id}`],
      ['POST', `/environments/${env.id}/tokens`],
      ['GET', `/environments/${env.id}/tokens`],
    ];
    const bearers: [string, string, string | undefined][] = [
      ['admin made inside the environment', envAdmin.token, code],
      ['environment token', token, code],
      ['global user (in the SHARED environment)', globalUser.token, code],
      ['global user', globalUser.token, undefined],
      ['user of the environment', envUser.token, code],
    ];
    const failures: string[] = [];
    await Promise.all(
      bearers.flatMap(([who, bearer, environment]) =>
        routes.map(async ([method, path, body]) => {
          const reply = await call(method, `${account.path}${path}`, { token: bearer, environment, body });
          if (reply.status !== 403 || reply.body?.data !== undefined)
            failures.push(`${who} ${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
        }),
      ),
    );
    expect(failures).toEqual([]);
    const after = (await admin('GET', `/environments/${env.id}`)).body.data;
    expect(after.attributes.name).toBe(env.attributes.name);
    expect(
      (await admin('GET', '/environments?page[size]=100')).body.data.some(
        (e: any) => e.attributes.name === 'x' && e.attributes.code !== code,
      ),
    ).toBe(false);
  });

  it('a global admin may manage environments from inside one too', async () => {
    const env = await createEnv({ isolationStrategy: 'ISOLATED' });
    const reply = await admin('GET', '/environments', { environment: env.attributes.code });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  });

  it('no credentials → 401 TOKEN_MISSING', async () => {
    const reply = await call('GET', `${account.path}/environments`);
    expectError(reply, 401, { code: 'TOKEN_MISSING' });
    expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
  });
});

describe.concurrent('environment tokens', () => {
  it('generates one from inside the environment: 200, environment-token, env-<64 hex>, permissions ["*"], expiry null', async () => {
    const env = await createEnv();
    const reply = await admin('POST', `/environments/${env.id}/tokens`, { environment: env.attributes.code });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const token = reply.body.data;
    expect(token.type).toBe('tokens');
    expect(token.attributes.kind).toBe('environment-token');
    expect(token.attributes.token).toMatch(/^env-[0-9a-f]{64}$/);
    expect(token.attributes.permissions).toEqual(['*']);
    expect(token.attributes.expiry).toBeNull();
    expect(token.attributes.created).toMatch(ISO);
    expect(token.relationships.account.data).toEqual({ type: 'accounts', id: account.id });
    expect(token.relationships.bearer.data).toEqual({ type: 'environments', id: env.id });
    expect(token.links.self).toBe(`/v1/accounts/${account.id}/tokens/${token.id}`);
    expect(reply.headers.get('service-environment')).toBe(env.attributes.code);
    // It works, inside its environment only.
    const inside = await call('GET', `${account.path}/users`, { token: token.attributes.token, environment: env.attributes.code });
    expect(inside.status).toBe(200);
    expectError(await call('GET', `${account.path}/users`, { token: token.attributes.token }), 401, { code: 'TOKEN_INVALID' });
  });

  it('takes name, expiry and permissions; a narrower token can do only what it lists', async () => {
    const env = await createEnv();
    const code = env.attributes.code;
    const expiry = new Date(Date.now() + 3600_000).toISOString();
    const reply = await admin('POST', `/environments/${code}/tokens`, {
      environment: code,
      body: { data: { type: 'tokens', attributes: { name: 'ci', expiry, permissions: ['user.read'] } } },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data.attributes).toMatchObject({ name: 'ci', permissions: ['user.read'] });
    expect(Date.parse(reply.body.data.attributes.expiry)).toBe(Date.parse(expiry));
    const value = reply.body.data.attributes.token;
    expect((await call('GET', `${account.path}/users`, { token: value, environment: code })).status).toBe(200);
    const create = await call('POST', `${account.path}/users`, {
      token: value,
      environment: code,
      body: userBody({ email: `${randomUUID().slice(0, 8)}@users.example` }),
    });
    expectError(create, 403);
  });

  it('refuses unknown permissions (422 PERMISSIONS_NOT_ALLOWED) and a past expiry (422 EXPIRY_INVALID)', async () => {
    const env = await createEnv();
    const code = env.attributes.code;
    const gen = (attributes: Record<string, unknown>) =>
      admin('POST', `/environments/${env.id}/tokens`, { environment: code, body: { data: { type: 'tokens', attributes } } });
    expectError(await gen({ permissions: ['user.read', 'everything.now'] }), 422, {
      code: 'PERMISSIONS_NOT_ALLOWED',
      pointer: '/data/attributes/permissions',
    });
    expectError(await gen({ expiry: new Date(Date.now() - 60_000).toISOString() }), 422, {
      code: 'EXPIRY_INVALID',
      pointer: '/data/attributes/expiry',
    });
    const list = await admin('GET', `/environments/${env.id}/tokens`);
    expect(list.body.data).toEqual([]);
  });

  it('must be made inside that environment: no header, or another environment → 403', async () => {
    const env = await createEnv();
    const other = await createEnv({ isolationStrategy: 'SHARED' });
    expectError(await admin('POST', `/environments/${env.id}/tokens`), 403);
    expectError(await admin('POST', `/environments/${env.id}/tokens`, { environment: other.attributes.code }), 403);
    // The query parameter names it as well as the header does.
    const viaQuery = await admin('POST', `/environments/${env.id}/tokens?environment=${env.attributes.code}`);
    expect(viaQuery.status, JSON.stringify(viaQuery.body)).toBe(200);
    const byId = await admin('POST', `/environments/${env.attributes.code}/tokens`, { environment: env.id });
    expect(byId.status, JSON.stringify(byId.body)).toBe(200);
    const list = await admin('GET', `/environments/${env.id}/tokens`);
    expect(list.body.links.meta.count).toBe(2);
  });

  it('an unknown environment → 404', async () => {
    expectError(await admin('POST', `/environments/${randomUUID()}/tokens`), 404, { code: 'NOT_FOUND' });
  });

  it('GET /environments/<id>/tokens lists its tokens newest first, without values', async () => {
    const env = await createEnv();
    const other = await createEnv();
    const first = await admin('POST', `/environments/${env.id}/tokens`, { environment: env.id });
    const second = await admin('POST', `/environments/${env.id}/tokens`, { environment: env.id });
    await envToken(other.attributes.code);
    const list = await admin('GET', `/environments/${env.attributes.code}/tokens`);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.data.map((t: any) => t.id)).toEqual([second.body.data.id, first.body.data.id]);
    expect(list.body.links.meta).toEqual({ pages: 1, count: 2 });
    for (const token of list.body.data) {
      expect(token.attributes).not.toHaveProperty('token');
      expect(token.attributes.kind).toBe('environment-token');
    }
    const text = JSON.stringify(list.body);
    expect(text).not.toContain(first.body.data.attributes.token);
    expect(text).not.toContain(second.body.data.attributes.token);
    // Retrieving one shows no value either.
    const one = await admin('GET', `/tokens/${first.body.data.id}`, { environment: env.id });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body.data.attributes).not.toHaveProperty('token');
    expectError(await admin('GET', `/environments/${randomUUID()}/tokens`), 404, { code: 'NOT_FOUND' });
  });
});

describe.concurrent('environment selection', () => {
  it('the header wins over ?environment=', async () => {
    const a = await createEnv();
    const b = await createEnv();
    const ta = await envToken(a.attributes.code);
    const ua = await newUser(account, {}, { environment: a.attributes.code, token: ta });
    const reply = await admin('GET', `/users?environment=${b.attributes.code}`, { environment: a.attributes.code });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.headers.get('service-environment')).toBe(a.attributes.code);
    expect(reply.body.data.map((u: any) => u.id)).toEqual([ua.id]);
    // The header wins even when the query names an unknown environment.
    const unknownQuery = await admin('GET', '/users?environment=nope-nope', { environment: a.attributes.code });
    expect(unknownQuery.status).toBe(200);
    // And an unknown header loses even when the query is fine.
    expectError(await admin('GET', `/users?environment=${a.attributes.code}`, { environment: 'nope-nope' }), 400, {
      code: 'ENVIRONMENT_INVALID',
      header: 'Service-Environment',
    });
  });

  it('header and query both accept the id or the code (any case); the response echoes the code', async () => {
    const code = freshCode('Echo');
    const env = await createEnv({ code });
    for (const [how, options, query] of [
      ['header id', { environment: env.id }, ''],
      ['header code', { environment: code }, ''],
      ['header upper-case code', { environment: code.toUpperCase() }, ''],
      ['query code', {}, `?environment=${code}`],
      ['query id', {}, `?environment=${env.id}`],
    ] as const) {
      const reply = await admin('GET', `/users${query}`, options);
      expect(reply.status, `${how}: ${JSON.stringify(reply.body)}`).toBe(200);
      expect(reply.headers.get('service-environment'), how).toBe(code);
    }
  });

  it('Keygen-Environment is an alias of Service-Environment; the two naming different environments → 400', async () => {
    const a = await createEnv();
    const b = await createEnv();
    const ta = await envToken(a.attributes.code);
    const ua = await newUser(account, {}, { environment: a.attributes.code, token: ta });
    const alias = await admin('GET', '/users', { headers: { 'keygen-environment': a.attributes.code } });
    expect(alias.status, JSON.stringify(alias.body)).toBe(200);
    expect(alias.body.data.map((u: any) => u.id)).toEqual([ua.id]);
    expect(alias.headers.get('service-environment')).toBe(a.attributes.code);
    // The same environment named both ways (id and code, any case) is no conflict.
    for (const [ours, alias] of [
      [a.attributes.code.toUpperCase(), a.attributes.code],
      [a.id, a.attributes.code],
      [a.attributes.code, a.id.toUpperCase()],
    ]) {
      const both = await admin('GET', '/users', { environment: ours, headers: { 'keygen-environment': alias } });
      expect(both.status, `${ours} / ${alias}: ${JSON.stringify(both.body)}`).toBe(200);
    }
    // An environment's token does not get into another through the alias.
    expectError(await call('GET', `${account.path}/users`, { token: ta, headers: { 'keygen-environment': b.attributes.code } }), 401);
    expectError(
      await admin('GET', '/users', { environment: a.attributes.code, headers: { 'keygen-environment': b.attributes.code } }),
      400,
      {
        code: 'ENVIRONMENT_HEADER_CONFLICT',
        header: 'Keygen-Environment',
      },
    );
  });

  it('no Service-Environment in responses to global requests', async () => {
    const reply = await admin('GET', '/users');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('service-environment')).toBeNull();
  });

  it('a blank header → 400 ENVIRONMENT_INVALID with source.header', async () => {
    for (const value of ['', '   ']) {
      expectError(await admin('GET', '/users', { environment: value }), 400, {
        code: 'ENVIRONMENT_INVALID',
        header: 'Service-Environment',
      });
    }
  });

  it("an unknown header (code, UUID, another account's environment) → 400 ENVIRONMENT_INVALID", async () => {
    const other = await newAccount();
    const foreign = await createEnv({}, other);
    for (const value of [
      `nope-${randomUUID().slice(0, 6)}`,
      randomUUID(),
      foreign.id,
      foreign.attributes.code,
      'has space',
      'x'.repeat(300),
    ]) {
      expectError(await admin('GET', '/users', { environment: value }), 400, {
        code: 'ENVIRONMENT_INVALID',
        header: 'Service-Environment',
      });
    }
  });

  it('an unknown or blank ?environment= → 400 ENVIRONMENT_INVALID with source.header too', async () => {
    for (const query of ['?environment=nope-nope', `?environment=${randomUUID()}`, '?environment=']) {
      expectError(await admin('GET', `/users${query}`), 400, { code: 'ENVIRONMENT_INVALID', header: 'Service-Environment' });
    }
  });

  it('the environment is checked before authentication (400 even without a token)', async () => {
    expectError(await call('GET', `${account.path}/users`, { environment: 'nope-nope' }), 400, { code: 'ENVIRONMENT_INVALID' });
    expectError(await call('GET', `${account.path}/users`, { environment: 'nope-nope', token: `user-${'0'.repeat(64)}` }), 400, {
      code: 'ENVIRONMENT_INVALID',
    });
  });

  it("a deleted environment's id and code → 400 ENVIRONMENT_INVALID", async () => {
    const env = await createEnv();
    expect((await admin('DELETE', `/environments/${env.id}`)).status).toBe(204);
    for (const value of [env.id, env.attributes.code]) {
      expectError(await admin('GET', '/users', { environment: value }), 400, {
        code: 'ENVIRONMENT_INVALID',
        header: 'Service-Environment',
      });
    }
  });

  it("records are born in the request's environment, chosen by header or query", async () => {
    const env = await createEnv({ isolationStrategy: 'SHARED' });
    const viaQuery = await admin('POST', `/users?environment=${env.attributes.code}`, {
      body: userBody({ email: `${randomUUID().slice(0, 8)}@users.example` }),
    });
    expect(viaQuery.status, JSON.stringify(viaQuery.body)).toBe(201);
    expect(viaQuery.body.data.relationships.environment.data).toEqual({ type: 'environments', id: env.id });
    const global = await admin('POST', '/users', { body: userBody({ email: `${randomUUID().slice(0, 8)}@users.example` }) });
    expect(global.body.data.relationships.environment.data).toBeNull();
  });
});
