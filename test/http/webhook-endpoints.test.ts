/**
 * Webhook endpoints (docs/rules.md §26.1): create (secret shown once), retrieve, update, list,
 * delete; their model rules; who may manage them; environment isolation.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, newAccount, newUser, type TestAccount } from '../support/client.ts';

let account: TestAccount;
beforeAll(async () => {
  account = await newAccount();
});

const endpointBody = (attributes: Record<string, unknown>) => ({ data: { type: 'webhook-endpoints', attributes } });
const admin = (method: string, path: string, options: Parameters<typeof call>[2] = {}) =>
  call(method, `${account.path}${path}`, { token: account.adminToken, ...options });

async function createEndpoint(attributes: Record<string, unknown> = {}, options: Parameters<typeof call>[2] = {}) {
  const reply = await admin('POST', '/webhook-endpoints', {
    body: endpointBody({ url: 'https://127.0.0.1:9/in', ...attributes }),
    ...options,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.data;
}

async function environment(isolationStrategy: 'ISOLATED' | 'SHARED' = 'ISOLATED') {
  const code = `wh-${randomUUID().slice(0, 8)}`;
  const reply = await admin('POST', '/environments', {
    body: { data: { type: 'environments', attributes: { name: code, code, isolationStrategy } } },
  });
  expect(reply.status).toBe(201);
  const token = await admin('POST', `/environments/${code}/tokens`, { environment: code });
  return { code, id: reply.body.data.id as string, token: token.body.data.attributes.token as string };
}

describe.concurrent('the resource', () => {
  it('creates an endpoint: 201, url, subscriptions ["*"] by default, enabled, the signing secret once', async () => {
    const reply = await admin('POST', '/webhook-endpoints', { body: endpointBody({ url: 'https://127.0.0.1:9/a' }) });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const endpoint = reply.body.data;
    expect(endpoint.type).toBe('webhook-endpoints');
    expect(endpoint.attributes).toMatchObject({ url: 'https://127.0.0.1:9/a', subscriptions: ['*'], enabled: true });
    expect(endpoint.attributes.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(endpoint.attributes.signingSecret.slice(6), 'base64')).toHaveLength(32);
    expect(endpoint.relationships.account.data).toEqual({ type: 'accounts', id: account.id });
    expect(endpoint.relationships.environment).toEqual({ data: null });
    expect(endpoint.links.self).toBe(`/v1/accounts/${account.id}/webhook-endpoints/${endpoint.id}`);

    const read = await call('GET', endpoint.links.self, { token: account.adminToken });
    expect(read.status).toBe(200);
    expect(read.body.data.attributes).not.toHaveProperty('signingSecret');
    const { signingSecret: _secret, ...shown } = endpoint.attributes;
    expect(read.body.data.attributes).toEqual(shown);
    expect(JSON.stringify(read.body)).not.toContain(endpoint.attributes.signingSecret);
  });

  it('keeps the subscriptions it is given, without duplicates', async () => {
    const endpoint = await createEndpoint({ subscriptions: ['user.created', 'license.created', 'user.created'] });
    expect(endpoint.attributes.subscriptions).toEqual(['user.created', 'license.created']);
  });

  it('updates url, subscriptions and enabled; what is not sent stays', async () => {
    const endpoint = await createEndpoint({ subscriptions: ['user.created'] });
    const first = await admin('PATCH', `/webhook-endpoints/${endpoint.id}`, { body: endpointBody({ enabled: false }) });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data.attributes).toMatchObject({ url: endpoint.attributes.url, subscriptions: ['user.created'], enabled: false });
    expect(first.body.data.attributes).not.toHaveProperty('signingSecret');
    const second = await admin('PATCH', `/webhook-endpoints/${endpoint.id}`, {
      body: {
        data: { type: 'webhook-endpoints', id: endpoint.id, attributes: { url: 'https://127.0.0.1:9/other/x', subscriptions: ['*'] } },
      },
    });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.data.attributes).toMatchObject({ url: 'https://127.0.0.1:9/other/x', subscriptions: ['*'], enabled: false });
    expect(second.body.data.attributes.created).toBe(endpoint.attributes.created);
  });

  it('deletes: 204, then 404', async () => {
    const endpoint = await createEndpoint();
    const reply = await admin('DELETE', `/webhook-endpoints/${endpoint.id}`);
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    expectError(await admin('GET', `/webhook-endpoints/${endpoint.id}`), 404, { code: 'NOT_FOUND' });
    expectError(await admin('DELETE', `/webhook-endpoints/${endpoint.id}`), 404, { code: 'NOT_FOUND' });
  });

  it('lists newest first with links and counts', async () => {
    const other = await newAccount();
    const made = [];
    for (let i = 0; i < 3; i++) {
      const reply = await call('POST', `${other.path}/webhook-endpoints`, {
        token: other.adminToken,
        body: endpointBody({ url: `https://127.0.0.1:9/${i}` }),
      });
      made.push(reply.body.data.id);
    }
    const list = await call('GET', `${other.path}/webhook-endpoints?page[size]=2&page[number]=1`, { token: other.adminToken });
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: any) => e.id)).toEqual([made[2], made[1]]);
    expect(list.body.links.meta).toEqual({ pages: 2, count: 3 });
    expect(list.body.data[0].attributes).not.toHaveProperty('signingSecret');
  });
});

describe.concurrent('model rules and body shape', () => {
  it('refuses a URL that is not absolute http(s): 422 URL_INVALID with a pointer', async () => {
    for (const url of ['ftp://hooks.example.com/x', '/relative', 'not a url', 'https://user:pw@hooks.example.com/']) {
      expectError(await admin('POST', '/webhook-endpoints', { body: endpointBody({ url }) }), 422, {
        code: 'URL_INVALID',
        source: { pointer: '/data/attributes/url' },
      });
    }
  });

  it('refuses a URL longer than 2048 characters: 422 URL_TOO_LONG', async () => {
    const url = `https://127.0.0.1:9/${'a'.repeat(2048)}`;
    expectError(await admin('POST', '/webhook-endpoints', { body: endpointBody({ url }) }), 422, {
      code: 'URL_TOO_LONG',
      source: { pointer: '/data/attributes/url' },
    });
  });

  it('refuses a subscription that is no event kind: 422 SUBSCRIPTIONS_INVALID pointing at it', async () => {
    expectError(
      await admin('POST', '/webhook-endpoints', {
        body: endpointBody({ url: 'https://127.0.0.1:9', subscriptions: ['user.created', 'nonsense'] }),
      }),
      422,
      {
        code: 'SUBSCRIPTIONS_INVALID',
        source: { pointer: '/data/attributes/subscriptions/1' },
      },
    );
  });

  it('refuses a wrong body shape with 400: missing url, unknown attribute, wrong types', async () => {
    expectError(await admin('POST', '/webhook-endpoints', { body: endpointBody({}) }), 400, {
      source: { pointer: '/data/attributes/url' },
      detail: 'is missing',
    });
    expectError(await admin('POST', '/webhook-endpoints', { body: endpointBody({ url: 'https://127.0.0.1:9', secret: 'x' }) }), 400, {
      source: { pointer: '/data/attributes/secret' },
      detail: 'unpermitted parameter',
    });
    expectError(
      await admin('POST', '/webhook-endpoints', { body: endpointBody({ url: 'https://127.0.0.1:9', subscriptions: 'user.created' }) }),
      400,
      {
        source: { pointer: '/data/attributes/subscriptions' },
      },
    );
    const endpoint = await createEndpoint();
    expectError(await admin('PATCH', `/webhook-endpoints/${endpoint.id}`, { body: endpointBody({ enabled: 'no' }) }), 400, {
      source: { pointer: '/data/attributes/enabled' },
    });
    expectError(await admin('PATCH', `/webhook-endpoints/${endpoint.id}`, { body: endpointBody({ signingSecret: 'whsec_x' }) }), 400, {
      source: { pointer: '/data/attributes/signingSecret' },
    });
  });
});

describe.concurrent('who may manage endpoints', () => {
  it('a user bearer may neither create nor list (403), nor see one (404)', async () => {
    const user = await newUser(account);
    const endpoint = await createEndpoint();
    expectError(
      await call('POST', `${account.path}/webhook-endpoints`, { token: user.token, body: endpointBody({ url: 'https://127.0.0.1:9' }) }),
      403,
    );
    expectError(await call('GET', `${account.path}/webhook-endpoints`, { token: user.token }), 403);
    expectError(await call('GET', `${account.path}/webhook-endpoints/${endpoint.id}`, { token: user.token }), 404, { code: 'NOT_FOUND' });
    expectError(await call('DELETE', `${account.path}/webhook-endpoints/${endpoint.id}`, { token: user.token }), 404, {
      code: 'NOT_FOUND',
    });
  });

  it('an environment bearer manages the endpoints of its environment, which nobody outside sees', async () => {
    const env = await environment();
    const created = await call('POST', `${account.path}/webhook-endpoints`, {
      token: env.token,
      environment: env.code,
      body: endpointBody({ url: 'https://127.0.0.1:9/env' }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.relationships.environment.data).toEqual({ type: 'environments', id: env.id });
    const id = created.body.data.id;
    expect((await call('GET', `${account.path}/webhook-endpoints/${id}`, { token: env.token, environment: env.code })).status).toBe(200);
    const list = await call('GET', `${account.path}/webhook-endpoints`, { token: env.token, environment: env.code });
    expect(list.body.data.map((e: any) => e.id)).toEqual([id]);
    // The global environment does not see it.
    expectError(await admin('GET', `/webhook-endpoints/${id}`), 404, { code: 'NOT_FOUND' });
    const global = await admin('GET', '/webhook-endpoints?page[size]=100');
    expect(global.body.data.map((e: any) => e.id)).not.toContain(id);
    const patched = await call('PATCH', `${account.path}/webhook-endpoints/${id}`, {
      token: env.token,
      environment: env.code,
      body: endpointBody({ enabled: false }),
    });
    expect(patched.status).toBe(200);
    expect((await call('DELETE', `${account.path}/webhook-endpoints/${id}`, { token: env.token, environment: env.code })).status).toBe(204);
  });

  it('a SHARED environment does not see global endpoints at all (404, absent from its list)', async () => {
    const env = await environment('SHARED');
    const global = await createEndpoint();
    for (const token of [env.token, account.adminToken]) {
      expectError(await call('GET', `${account.path}/webhook-endpoints/${global.id}`, { token, environment: env.code }), 404);
      expectError(
        await call('PATCH', `${account.path}/webhook-endpoints/${global.id}`, {
          token,
          environment: env.code,
          body: endpointBody({ enabled: false }),
        }),
        404,
      );
      expectError(await call('DELETE', `${account.path}/webhook-endpoints/${global.id}`, { token, environment: env.code }), 404);
      const list = await call('GET', `${account.path}/webhook-endpoints?page[size]=100`, { token, environment: env.code });
      expect(list.body.data.map((endpoint: { id: string }) => endpoint.id)).not.toContain(global.id);
    }
    expect(
      (await call('GET', `${account.path}/webhook-endpoints/${global.id}`, { token: account.adminToken })).body.data.attributes.enabled,
    ).toBe(true);
  });

  it('a token without webhook-endpoint permissions is refused (403)', async () => {
    const env = await environment();
    const limited = await admin('POST', `/environments/${env.code}/tokens`, {
      environment: env.code,
      body: { data: { type: 'tokens', attributes: { permissions: ['user.read'] } } },
    });
    const token = limited.body.data.attributes.token;
    expectError(
      await call('POST', `${account.path}/webhook-endpoints`, {
        token,
        environment: env.code,
        body: endpointBody({ url: 'https://127.0.0.1:9' }),
      }),
      403,
    );
    expectError(await call('GET', `${account.path}/webhook-endpoints`, { token, environment: env.code }), 403);
  });
});
