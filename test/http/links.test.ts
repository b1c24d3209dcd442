/**
 * Every link an answer gives resolves as given (docs/rules.md §9): followed with the same bearer
 * and headers, it answers. A webhook event outlives its endpoint without a link to it once it is
 * gone (§26.3); a record of another environment than the one the request's headers select names its
 * environment in its links (`?environment=<id>`), and a list of an environment's tokens is made
 * only where its links can be followed (§15.2).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, environmentToken, expectError, newAccount, newEnvironment, newUser, type TestAccount } from '../support/client.ts';
import { doc, licensing } from '../support/licensing.ts';
import { assertLinksResolve } from '../support/links.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
let receiver: Receiver;
/** A SHARED environment and an ISOLATED one. */
let shared: { id: string; code: string };
let isolated: { id: string; code: string };

const admin = (method: string, path: string, options: Parameters<typeof call>[2] = {}) =>
  call(method, `${account.path}${path}`, { token: account.adminToken, ...options });

/** GET as the admin, expecting 200; the body. */
async function read(path: string, options: Parameters<typeof call>[2] = {}) {
  const reply = await admin('GET', path, options);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

/** Every link of the answer that leads into the account's records (not to the account or an environment). */
const recordLinks = (resource: any): string[] =>
  [resource.links.self, ...Object.values(resource.relationships).map((relationship: any) => relationship.links?.related)].filter(
    (link): link is string => typeof link === 'string' && !/^\/v1\/accounts\/[^/]+(\/environments\/[^/]+)?$/.test(link),
  );

beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
  receiver = await startReceiver();
  shared = await newEnvironment(account, 'SHARED');
  isolated = await newEnvironment(account, 'ISOLATED');
});
afterAll(() => receiver.close());

describe('a webhook event outlives its endpoint', () => {
  it('keeps naming the deleted endpoint, without a link to it; every link of the list and of the event resolves', async () => {
    const environment = { environment: isolated.code };
    const endpoint = await admin('POST', '/webhook-endpoints', {
      ...environment,
      body: doc('webhook-endpoints', { url: receiver.url, subscriptions: ['product.created'] }),
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const endpointId = endpoint.body.data.id as string;
    await l.product({}, environment);
    const [made] = (await read('/webhook-events?events[]=product.created', environment)).data;
    const eventPath = `/webhook-events/${made.id}`;

    // While the endpoint exists, the event links to it.
    const before = await read(eventPath, environment);
    expect(before.data.relationships.endpoint).toEqual({
      links: { related: `${account.path}/webhook-endpoints/${endpointId}` },
      data: { type: 'webhook-endpoints', id: endpointId },
    });
    await assertLinksResolve(before, { token: account.adminToken, ...environment });

    expect((await admin('DELETE', `/webhook-endpoints/${endpointId}`, environment)).status).toBe(204);
    expectError(await admin('GET', `/webhook-endpoints/${endpointId}`, environment), 404);

    const after = await read(eventPath, environment);
    expect(after.data.relationships.endpoint).toEqual({ data: { type: 'webhook-endpoints', id: endpointId } });
    await assertLinksResolve(after, { token: account.adminToken, ...environment });
    for (const query of ['', `?endpoint=${endpointId}`, '?events[]=product.created']) {
      const list = await read(`/webhook-events${query}`, environment);
      const shown = list.data.find((event: any) => event.id === made.id);
      expect(shown?.relationships.endpoint, query).toEqual({ data: { type: 'webhook-endpoints', id: endpointId } });
      await assertLinksResolve(list, { token: account.adminToken, ...environment });
    }
  });

  it('an event of an endpoint that still exists keeps its link beside one whose endpoint is gone', async () => {
    const environment = { environment: shared.code };
    const make = async () => {
      const reply = await admin('POST', '/webhook-endpoints', {
        ...environment,
        body: doc('webhook-endpoints', { url: receiver.url, subscriptions: ['policy.created'] }),
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      return reply.body.data.id as string;
    };
    const [kept, removed] = [await make(), await make()];
    const product = await l.product({}, environment);
    await l.policy(product.id, {}, environment);
    expect((await admin('DELETE', `/webhook-endpoints/${removed}`, environment)).status).toBe(204);
    const list = await read('/webhook-events?events[]=policy.created', environment);
    const byEndpoint = Object.fromEntries(
      list.data.map((event: any) => [event.relationships.endpoint.data.id, event.relationships.endpoint]),
    );
    expect(byEndpoint[kept].links).toEqual({ related: `${account.path}/webhook-endpoints/${kept}` });
    expect(byEndpoint[removed]).toEqual({ data: { type: 'webhook-endpoints', id: removed } });
    await assertLinksResolve(list, { token: account.adminToken, ...environment });
  });
});

describe('links into another environment', () => {
  it("an environment's tokens listed from the global environment name their environment; each link resolves without a header", async () => {
    await environmentToken(account, isolated.code);
    await environmentToken(account, shared.code);
    for (const environment of [isolated, shared]) {
      const list = await read(`/environments/${environment.id}/tokens`);
      expect(list.data.length).toBeGreaterThan(0);
      for (const token of list.data) {
        expect(token.links.self).toBe(`${account.path}/tokens/${token.id}?environment=${environment.id}`);
        // The environment itself (its bearer and its environment) is read alike from everywhere.
        expect(token.relationships.environment.links.related).toBe(`${account.path}/environments/${environment.id}`);
        expect(token.relationships.bearer.links.related).toBe(`${account.path}/environments/${environment.id}`);
      }
      await assertLinksResolve(list, { token: account.adminToken });
    }
  });

  it('from inside that environment its tokens link plainly; from another environment the list is refused', async () => {
    const inside = await read(`/environments/${isolated.id}/tokens`, { environment: isolated.code });
    expect(inside.data.length).toBeGreaterThan(0);
    for (const token of inside.data) expect(token.links.self).toBe(`${account.path}/tokens/${token.id}`);
    await assertLinksResolve(inside, { token: account.adminToken, environment: isolated.code });
    // The header would win over any ?environment= the links could carry.
    expectError(await admin('GET', `/environments/${isolated.id}/tokens`, { environment: shared.code }), 403);
  });

  it('a request that chose its environment by the query parameter alone gets links that name it', async () => {
    const query = `?environment=${shared.code}`;
    const inShared = { environment: shared.code };
    const graph = await l.graph(inShared);
    await l.component(graph.machine.id, undefined, inShared);
    await l.productToken(graph.product.id, inShared);
    await newUser(account, {}, inShared);
    await admin('POST', '/webhook-endpoints', {
      ...inShared,
      body: doc('webhook-endpoints', { url: receiver.url, subscriptions: ['user.deleted'] }),
    });
    for (const type of ['products', 'policies', 'licenses', 'machines', 'components', 'users', 'tokens', 'webhook-endpoints']) {
      const list = await read(`/${type}${query}`);
      const own = list.data.filter((resource: any) => resource.relationships.environment.data?.id === shared.id);
      expect(own.length, type).toBeGreaterThan(0);
      for (const resource of list.data) {
        // The environment's own records name it; the global ones it sees (users, say) are reached without it.
        const expected = own.includes(resource) ? new RegExp(`\\?environment=${shared.id}$`) : /^[^?]*$/;
        for (const link of recordLinks(resource)) expect(link, type).toMatch(expected);
      }
      // The list's own links repeat the request's query, the environment with it.
      expect(list.links.self).toContain(`environment=${shared.code}`);
      await assertLinksResolve(list, { token: account.adminToken });
    }
    const license = await read(`/licenses/${graph.license.id}${query}`);
    expect(license.data.links.self).toBe(`${account.path}/licenses/${graph.license.id}?environment=${shared.id}`);
    expect(license.data.relationships.machines.links.related).toBe(
      `${account.path}/licenses/${graph.license.id}/machines?environment=${shared.id}`,
    );
    await assertLinksResolve(license, { token: account.adminToken });
    // A create answers the same way.
    const created = await admin('POST', `/products${query}`, { body: doc('products', { name: 'Named by the query' }) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.links.self).toBe(`${account.path}/products/${created.body.data.id}?environment=${shared.id}`);
    await assertLinksResolve(created.body, { token: account.adminToken });
  });

  it('a SHARED environment sees global records and its own: their links are plain, and resolve from there', async () => {
    const global = await l.graph();
    const own = await l.graph({ environment: shared.code });
    const inside = { token: account.adminToken, environment: shared.code };
    const shown = { products: 'product', policies: 'policy', licenses: 'license', machines: 'machine' } as const;
    for (const [type, record] of [...Object.entries(shown), ['users', undefined] as const]) {
      const list = await read(`/${type}`, { environment: shared.code });
      const ids = list.data.map((resource: any) => resource.id);
      if (record) expect(ids, type).toEqual(expect.arrayContaining([global[record].id, own[record].id]));
      else expect(ids, type).toContain(account.adminId);
      for (const resource of list.data) for (const link of recordLinks(resource)) expect(link, type).not.toContain('?');
      await assertLinksResolve(list, inside);
    }
    for (const license of [global.license, own.license]) await assertLinksResolve(await read(`/licenses/${license.id}`, inside), inside);
    // The same global records from the global environment resolve there too.
    await assertLinksResolve(await read(`/licenses/${global.license.id}`), { token: account.adminToken });
    // A product token of the SHARED environment follows a global license's links (403 counts: the record is there).
    const productToken = await l.productToken(own.product.id, { environment: shared.code });
    const asProduct = { token: productToken, environment: shared.code };
    const machines = await call('GET', `${account.path}/machines`, asProduct);
    expect(machines.status, JSON.stringify(machines.body)).toBe(200);
    await assertLinksResolve(machines.body, asProduct);
  });

  it('a header wins over ?environment=: records of the header’s environment link plainly', async () => {
    const product = await l.product({}, { environment: isolated.code });
    const reply = await read(`/products/${product.id}?environment=${shared.code}`, { environment: isolated.code });
    expect(reply.data.links.self).toBe(`${account.path}/products/${product.id}`);
    await assertLinksResolve(reply, { token: account.adminToken, environment: isolated.code });
  });
});
