/**
 * Webhook events as a resource (docs/rules.md §26.3): exactly the documented fields,
 * list newest first with the `events[]` filter (one kind or several, merged newest first) and
 * the `endpoint` filter, retrieve, delete, who may see them, environment isolation.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, newAccount, newUser, type TestAccount, userBody } from '../support/client.ts';
import { until } from '../support/patience.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';

let account: TestAccount;
let receiver: Receiver;
let endpointId: string;
/** A user bearer made in beforeAll (so no test adds events to the shared account). */
let userToken: string;
/** Events made in beforeAll, by kind. */
const made: Record<string, string[]> = {};

const admin = (method: string, path: string, options: Parameters<typeof call>[2] = {}) =>
  call(method, `${account.path}${path}`, { token: account.adminToken, ...options });

async function list(query: string, options: Parameters<typeof call>[2] = {}) {
  const reply = await admin('GET', `/webhook-events?${query}`, options);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

beforeAll(async () => {
  account = await newAccount();
  receiver = await startReceiver();
  const endpoint = await admin('POST', '/webhook-endpoints', {
    body: { data: { type: 'webhook-endpoints', attributes: { url: receiver.url } } },
  });
  endpointId = endpoint.body.data.id;
  // user.created ×3 (each with its token.generated), user.updated ×2, user.deleted ×1
  const users = [];
  for (let i = 0; i < 3; i++) users.push(await newUser(account));
  userToken = users[0]!.token;
  await admin('PATCH', `/users/${users[0]!.id}`, { body: userBody({ firstName: 'A' }) });
  await admin('PATCH', `/users/${users[1]!.id}`, { body: userBody({ firstName: 'B' }) });
  await admin('DELETE', `/users/${users[2]!.id}`);
  const all = await list('page[size]=100');
  for (const event of all.data) {
    made[event.attributes.event] ??= [];
    made[event.attributes.event].push(event.id);
  }
  await receiver.waitFor((d) => d.length >= all.data.length);
  // The receiver has the POSTs; the worker records each outcome right after the answer.
  await until(
    async () => (await list('page[size]=100')).data.every((event: any) => event.attributes.status === 'DELIVERED'),
    () => 'every event recorded as DELIVERED',
  );
});
afterAll(() => receiver.close());

describe.concurrent('the resource', () => {
  it('has exactly the documented fields: meta.idempotencyToken, links.self, the attributes, account relationship', async () => {
    const reply = await admin('GET', `/webhook-events/${made['user.deleted']![0]}`);
    expect(reply.status).toBe(200);
    const event = reply.body.data;
    expect(event.type).toBe('webhook-events');
    expect(Object.keys(event.attributes).sort()).toEqual([
      'created',
      'endpoint',
      'event',
      'lastResponseBody',
      'lastResponseCode',
      'payload',
      'status',
      'updated',
    ]);
    expect(event.meta.idempotencyToken).toMatch(/^[0-9a-f]{64}$/);
    expect(event.links.self).toBe(`/v1/accounts/${account.id}/webhook-events/${event.id}`);
    expect(event.relationships.account.data).toEqual({ type: 'accounts', id: account.id });
    expect(event.relationships.endpoint.data).toEqual({ type: 'webhook-endpoints', id: endpointId });
    expect(event.attributes).toMatchObject({
      endpoint: receiver.url,
      event: 'user.deleted',
      status: 'DELIVERED',
      lastResponseCode: 204,
      lastResponseBody: '',
    });
    expect(typeof event.attributes.payload).toBe('string');
    expect(JSON.parse(event.attributes.payload).data.type).toBe('users');
    // Every link resolves.
    expect((await call('GET', event.links.self, { token: account.adminToken })).status).toBe(200);
    expect((await call('GET', event.relationships.endpoint.links.related, { token: account.adminToken })).status).toBe(200);
  });

  it('lists newest first with pagination links and counts', async () => {
    const total = Object.values(made).flat().length;
    expect(total).toBe(9);
    const first = await list('page[size]=4&page[number]=1');
    expect(first.links.meta).toEqual({ pages: 3, count: 9 });
    const created = first.data.map((e: any) => e.attributes.created + e.id);
    expect([...created].sort().reverse()).toEqual(created);
    const pages = [first.data];
    for (let n = 2; n <= 3; n++) pages.push((await list(`page[size]=4&page[number]=${n}`)).data);
    expect(new Set(pages.flat().map((e: any) => e.id)).size).toBe(9);
  });

  it('filters by events[]=<kind>, one or several (merged newest first, counted together)', async () => {
    const one = await list('events[]=user.updated');
    expect(one.data.map((e: any) => e.id).sort()).toEqual([...made['user.updated']!].sort());
    expect(one.links.meta.count).toBe(2);
    expect(one.links.self).toContain(`${encodeURIComponent('events[]')}=user.updated`);

    const two = await list('events[]=user.created&events[]=user.deleted&page[size]=3');
    expect(two.links.meta).toEqual({ pages: 2, count: 4 });
    const next = await call('GET', two.links.next, { token: account.adminToken });
    const ids = [...two.data, ...next.body.data].map((e: any) => e.id);
    expect(ids.sort()).toEqual([...made['user.created']!, ...made['user.deleted']!].sort());
    const order = [...two.data, ...next.body.data].map((e: any) => e.attributes.created + e.id);
    expect([...order].sort().reverse()).toEqual(order);

    // By cursor, too.
    const cursor = await list('events[]=user.created&events[]=user.deleted&page[cursor]=&page[size]=3');
    expect(cursor.data.map((e: any) => e.id)).toEqual(two.data.map((e: any) => e.id));

    expect((await list('events[]=license.created')).data).toEqual([]);
  });

  it('filters by endpoint', async () => {
    const reply = await list(`endpoint=${endpointId}&page[size]=100`);
    expect(reply.links.meta.count).toBe(9);
    expect((await list(`endpoint=${randomUUID()}`)).data).toEqual([]);
  });

  it('refuses malformed filters with 400 and the parameter', async () => {
    expectError(await admin('GET', '/webhook-events?events[]=nonsense'), 400, {
      code: 'PARAMETERS_INVALID',
      source: { parameter: 'events[]' },
    });
    expectError(await admin('GET', '/webhook-events?events[]='), 400, { code: 'PARAMETERS_INVALID', source: { parameter: 'events[]' } });
    expectError(await admin('GET', '/webhook-events?endpoint=nope'), 400, {
      code: 'PARAMETERS_INVALID',
      source: { parameter: 'endpoint' },
    });
    expectError(await admin('GET', `/webhook-events?endpoint=${endpointId}&events[]=user.created`), 400, { code: 'PARAMETERS_INVALID' });
  });

  it('deletes: 204, then 404, and the list no longer holds it', async () => {
    const other = await newAccount();
    const r = await startReceiver();
    try {
      await call('POST', `${other.path}/webhook-endpoints`, {
        token: other.adminToken,
        body: { data: { type: 'webhook-endpoints', attributes: { url: r.url } } },
      });
      await newUser(other);
      const events = (await call('GET', `${other.path}/webhook-events`, { token: other.adminToken })).body.data;
      expect(events).toHaveLength(2);
      const id = events[0].id;
      const reply = await call('DELETE', `${other.path}/webhook-events/${id}`, { token: other.adminToken });
      expect(reply.status).toBe(204);
      expectError(await call('GET', `${other.path}/webhook-events/${id}`, { token: other.adminToken }), 404, { code: 'NOT_FOUND' });
      const after = (await call('GET', `${other.path}/webhook-events`, { token: other.adminToken })).body;
      expect(after.data.map((e: any) => e.id)).toEqual([events[1].id]);
      expect(after.links.meta.count).toBe(1);
    } finally {
      await r.close();
    }
  });

  it('unknown ids are 404', async () => {
    expectError(await admin('GET', `/webhook-events/${randomUUID()}`), 404, { code: 'NOT_FOUND' });
    expectError(await admin('GET', '/webhook-events/not-a-uuid'), 404, { code: 'NOT_FOUND' });
    expectError(await admin('POST', `/webhook-events/${randomUUID()}/actions/retry`), 404, { code: 'NOT_FOUND' });
  });
});

describe.concurrent('who may see them', () => {
  it('a user bearer may not list (403), see (404) or retry (404) events', async () => {
    const user = { token: userToken };
    const id = made['user.created']![0];
    expectError(await call('GET', `${account.path}/webhook-events`, { token: user.token }), 403);
    expectError(await call('GET', `${account.path}/webhook-events/${id}`, { token: user.token }), 404, { code: 'NOT_FOUND' });
    expectError(await call('POST', `${account.path}/webhook-events/${id}/actions/retry`, { token: user.token }), 404, {
      code: 'NOT_FOUND',
    });
    expectError(await call('DELETE', `${account.path}/webhook-events/${id}`, { token: user.token }), 404, { code: 'NOT_FOUND' });
  });

  it('an ISOLATED environment sees its own events only; global events are out of its reach', async () => {
    // Its own account: creating the environment is an event of the global environment.
    const other = await newAccount();
    const globalReceiver = await startReceiver();
    const r = await startReceiver();
    try {
      const globalEndpoint = await call('POST', `${other.path}/webhook-endpoints`, {
        token: other.adminToken,
        body: { data: { type: 'webhook-endpoints', attributes: { url: globalReceiver.url } } },
      });
      expect(globalEndpoint.status).toBe(201);
      const code = `evt-${randomUUID().slice(0, 8)}`;
      await call('POST', `${other.path}/environments`, {
        token: other.adminToken,
        body: { data: { type: 'environments', attributes: { name: code, code } } },
      });
      const token = (await call('POST', `${other.path}/environments/${code}/tokens`, { token: other.adminToken, environment: code })).body
        .data.attributes.token;
      const endpoint = await call('POST', `${other.path}/webhook-endpoints`, {
        token,
        environment: code,
        body: { data: { type: 'webhook-endpoints', attributes: { url: r.url } } },
      });
      expect(endpoint.status).toBe(201);
      const created = await call('POST', `${other.path}/users`, {
        token,
        environment: code,
        body: userBody({ email: `${randomUUID().slice(0, 8)}@env.example` }),
      });
      expect(created.status).toBe(201);

      const inside = await call('GET', `${other.path}/webhook-events`, { token, environment: code });
      expect(inside.body.data.map((e: any) => e.attributes.event)).toEqual(['user.created']);
      expect(inside.body.data[0].relationships.environment.data).toMatchObject({ type: 'environments' });
      const outside = await call('GET', `${other.path}/webhook-events`, { token: other.adminToken });
      // The environment token was generated inside the environment, before its endpoint existed.
      expect(outside.body.data.map((e: any) => e.attributes.event)).toEqual(['environment.created']);
      expectError(await call('GET', `${other.path}/webhook-events/${outside.body.data[0].id}`, { token, environment: code }), 404, {
        code: 'NOT_FOUND',
      });
      expectError(await call('GET', `${other.path}/webhook-events/${inside.body.data[0].id}`, { token: other.adminToken }), 404, {
        code: 'NOT_FOUND',
      });

      // The environment retries its own event from inside.
      await r.waitFor((d) => d.length >= 1);
      const retry = await call('POST', `${other.path}/webhook-events/${inside.body.data[0].id}/actions/retry`, {
        token,
        environment: code,
      });
      expect(retry.status, JSON.stringify(retry.body)).toBe(201);
      await r.waitFor((d) => d.length >= 2);
      expect(r.deliveries[1]!.headers['webhook-id']).toBe(r.deliveries[0]!.headers['webhook-id']);
    } finally {
      await Promise.all([r.close(), globalReceiver.close()]);
    }
  });
});
