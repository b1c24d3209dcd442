/**
 * Who may act on components (docs/rules.md §23.1, docs/authorization.md), every bearer allowed and refused:
 *
 *   Add       admin; the product it belongs to; the license it belongs to; the user that owns
 *             the machine or license (unless the license is protected)
 *   Retrieve  admin; the product; the license; the user it belongs to
 *   Update    admin, environment, or the product (metadata only for these)
 *   Remove    admin; the product; the license; the machine or license owner (unless protected)
 *   List      admin; the product; the license; the user the components belong to
 *
 * Refusals: a record out of the bearer's reach is 404 (a related machine out of reach is 422
 * MACHINE_NOT_FOUND); a reachable record the bearer may not change is 403.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount, newUser, type TestAccount } from '../support/client.ts';
import { doc, expectCode, ids, licensing, ref } from '../support/licensing.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
type Graph = Awaited<ReturnType<ReturnType<typeof licensing>['graph']>>;
let open: Graph;
let guarded: Graph;
let other: Graph;
let env: { code: string; token: string; graph: Graph };
const as: Record<string, { token?: string; authorization?: string; environment?: string }> = {};
let machineOwnerMachine: { id: string };

beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
  const [owner, guardedOwner, stranger, machineOwner] = await Promise.all([
    newUser(account),
    newUser(account),
    newUser(account),
    newUser(account),
  ]);
  [open, guarded, other] = await Promise.all([
    l.graph({ owner: owner.id }),
    l.graph({ owner: guardedOwner.id, policy: { protected: true } }),
    l.graph(),
  ]);
  // A machine whose owner is not the license's owner but a user attached to it: that user owns the machine.
  const attached = await l.api('POST', `/licenses/${other.license.id}/users`, { body: { data: [{ type: 'users', id: machineOwner.id }] } });
  expect(attached.status).toBe(200);
  machineOwnerMachine = await l.machine(other.license.id, {}, { owner: machineOwner.id });
  const code = `auth-${randomUUID().slice(0, 8)}`;
  const created = await call('POST', `${account.path}/environments`, {
    token: account.adminToken,
    body: { data: { type: 'environments', attributes: { name: code, code } } },
  });
  expect(created.status).toBe(201);
  const envToken = await call('POST', `${account.path}/environments/${code}/tokens`, { token: account.adminToken, environment: code });
  env = { code, token: envToken.body.data.attributes.token, graph: await l.graph({ environment: code }) };
  const [productToken, licenseToken] = await Promise.all([l.productToken(open.product.id), l.licenseToken(open.license.id)]);
  Object.assign(as, {
    admin: { token: account.adminToken },
    environment: { token: env.token, environment: code },
    product: { token: productToken },
    license: { token: licenseToken },
    licenseKey: { authorization: `License ${open.license.attributes.key}` },
    owner: { token: owner.token },
    guardedOwner: { token: guardedOwner.token },
    machineOwner: { token: machineOwner.token },
    stranger: { token: stranger.token },
  });
});

const add = (bearer: string, machineId: string) =>
  l.api('POST', '/components', {
    ...as[bearer],
    body: doc('components', { fingerprint: randomUUID(), name: 'part' }, { machine: ref('machines', machineId) }),
  });

describe.concurrent('Add component (component.create)', () => {
  it('admin, environment (inside it), the product, the license (token or key), the owning users: 201', async () => {
    expect((await add('admin', open.machine.id)).status).toBe(201);
    expect((await add('environment', env.graph.machine.id)).status).toBe(201);
    for (const bearer of ['product', 'license', 'licenseKey', 'owner'])
      expect((await add(bearer, open.machine.id)).status, bearer).toBe(201);
    expect((await add('machineOwner', machineOwnerMachine.id)).status).toBe(201);
  });
  it('a user on a protected license: 403; others out of reach: 422 MACHINE_NOT_FOUND', async () => {
    expectCode(await add('guardedOwner', guarded.machine.id), 403);
    expect((await add('admin', guarded.machine.id)).status).toBe(201);
    for (const bearer of ['product', 'license', 'licenseKey', 'owner', 'stranger']) {
      expectCode(await add(bearer, other.machine.id), 422, 'MACHINE_NOT_FOUND');
    }
    // A user attached to that license reaches its machines, as its owner would.
    expect((await add('machineOwner', other.machine.id)).status).toBe(201);
    expectCode(await add('environment', open.machine.id), 422, 'MACHINE_NOT_FOUND');
  });
  it('a token without component.create: 403', async () => {
    const narrow = await call('POST', `${account.path}/products/${open.product.id}/tokens`, {
      token: account.adminToken,
      body: { data: { type: 'tokens', attributes: { permissions: ['component.read'] } } },
    });
    expectCode(
      await l.api('POST', '/components', {
        token: narrow.body.data.attributes.token,
        body: doc('components', { fingerprint: 'f', name: 'n' }, { machine: ref('machines', open.machine.id) }),
      }),
      403,
    );
  });
});

describe.concurrent('Retrieve, update, remove, list', () => {
  it('retrieve: admin, product, license, owning user 200; others 404', async () => {
    const c = await l.component(open.machine.id);
    for (const bearer of ['admin', 'product', 'license', 'licenseKey', 'owner']) {
      expect((await l.api('GET', `/components/${c.id}`, as[bearer])).status, bearer).toBe(200);
    }
    for (const bearer of ['stranger', 'machineOwner', 'guardedOwner', 'environment'])
      expectCode(await l.api('GET', `/components/${c.id}`, as[bearer]), 404, 'NOT_FOUND');
    const theirs = await l.component(machineOwnerMachine.id);
    expect((await l.api('GET', `/components/${theirs.id}`, as.machineOwner)).status).toBe(200);
  });

  it('update: admin, environment, the product 200 (metadata included); license and owner 403; others 404', async () => {
    const c = await l.component(open.machine.id);
    const patch = (bearer: string, attributes: Record<string, unknown>) =>
      l.api('PATCH', `/components/${c.id}`, { ...as[bearer], body: doc('components', attributes) });
    expect((await patch('admin', { metadata: { by: 'admin' } })).body.data.attributes.metadata).toEqual({ by: 'admin' });
    expect((await patch('product', { name: 'by product', metadata: { by: 'product' } })).body.data.attributes).toMatchObject({
      name: 'by product',
      metadata: { by: 'product' },
    });
    for (const bearer of ['license', 'licenseKey', 'owner']) expectCode(await patch(bearer, { name: 'nope' }), 403);
    expectCode(await patch('owner', { metadata: { by: 'owner' } }), 403);
    expectCode(await patch('stranger', { name: 'nope' }), 404, 'NOT_FOUND');
    const inEnv = await l.component(env.graph.machine.id, undefined, { environment: env.code });
    expect(
      (await l.api('PATCH', `/components/${inEnv.id}`, { ...as.environment, body: doc('components', { metadata: { by: 'env' } }) })).status,
    ).toBe(200);
    expect((await l.api('GET', `/components/${c.id}`)).body.data.attributes).toMatchObject({
      name: 'by product',
      metadata: { by: 'product' },
    });
  });

  it('remove: admin, product, license, owning user 204; protected license owner 403; others 404', async () => {
    for (const bearer of ['admin', 'product', 'license', 'licenseKey', 'owner']) {
      const c = await l.component(open.machine.id);
      for (const outsider of ['stranger', 'machineOwner'])
        expectCode(await l.api('DELETE', `/components/${c.id}`, as[outsider]), 404, 'NOT_FOUND');
      expect((await l.api('DELETE', `/components/${c.id}`, as[bearer])).status, bearer).toBe(204);
    }
    const theirs = await l.component(machineOwnerMachine.id);
    expect((await l.api('DELETE', `/components/${theirs.id}`, as.machineOwner)).status).toBe(204);
    const kept = await l.component(guarded.machine.id);
    expectCode(await l.api('DELETE', `/components/${kept.id}`, as.guardedOwner), 403);
    expect((await l.api('GET', `/components/${kept.id}`)).status).toBe(200);
    const inEnv = await l.component(env.graph.machine.id, undefined, { environment: env.code });
    expect((await l.api('DELETE', `/components/${inEnv.id}`, as.environment)).status).toBe(204);
  });

  it('list: scoped to the bearer (admin all, product its, license its, user theirs)', async () => {
    const mine = await l.component(open.machine.id);
    const theirs = await l.component(other.machine.id);
    const listed = async (bearer: string, query = '?page[size]=100') => ids(await l.api('GET', `/components${query}`, as[bearer]));
    expect(await listed('admin')).toEqual(expect.arrayContaining([mine.id, theirs.id]));
    for (const bearer of ['product', 'license', 'licenseKey', 'owner']) {
      const seen = await listed(bearer);
      expect(seen, bearer).toContain(mine.id);
      expect(seen, bearer).not.toContain(theirs.id);
    }
    expect(await listed('stranger')).toEqual([]);
    expect(await listed('owner', `?product=${other.product.id}`)).toEqual([]);
    expect(await listed('product', `?license=${other.license.id}`)).toEqual([]);
    const inEnv = await l.component(env.graph.machine.id, undefined, { environment: env.code });
    expect(await listed('environment')).toContain(inEnv.id);
    expect(await listed('environment')).not.toContain(mine.id);
  });
});
