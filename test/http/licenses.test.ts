/** Licenses: create under a policy (key, owner), retrieve, update, delete, list, tokens, key authentication, relationships. */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, newAccount, newUser, type TestAccount } from '../support/client.ts';
import { doc, expectCode, ids, licensing, ref } from '../support/licensing.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
});

describe.concurrent('licenses', () => {
  it('creates with a generated key, retrieves, updates, deletes', async () => {
    const p = await l.product();
    const pol = await l.policy(p.id);
    const created = await l.api('POST', '/licenses', {
      body: doc('licenses', { name: 'Seat 1', metadata: { seat: 1 } }, { policy: ref('policies', pol.id) }),
    });
    expect(created.status).toBe(201);
    const lic = created.body.data;
    expect(lic.attributes).toMatchObject({
      name: 'Seat 1',
      status: 'ACTIVE',
      suspended: false,
      protected: false,
      expiry: null,
      metadata: { seat: 1 },
    });
    expect(lic.attributes.key).toMatch(/^[0-9A-F]{8}(-[0-9A-F]{8}){3}$/);
    expect((await l.api('GET', `/licenses/${lic.id}`)).body.data).toEqual(lic);
    const expiry = new Date(Date.now() + 86_400_000).toISOString();
    const updated = await l.api('PATCH', `/licenses/${lic.id}`, {
      body: doc('licenses', { name: 'Renamed', expiry, suspended: true, protected: true, metadata: {} }),
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toMatchObject({
      name: 'Renamed',
      expiry,
      suspended: true,
      status: 'SUSPENDED',
      protected: true,
      metadata: {},
      key: lic.attributes.key,
    });
    expectCode(await l.api('PATCH', `/licenses/${lic.id}`, { body: doc('licenses', { key: 'other' }) }), 400);
    expect((await l.api('DELETE', `/licenses/${lic.id}`)).status).toBe(204);
    expectCode(await l.api('GET', `/licenses/${lic.id}`), 404, 'NOT_FOUND');
  });

  it('keys are unique per account (422 KEY_TAKEN, also under concurrency); protected defaults to the policy', async () => {
    const p = await l.product();
    const pol = await l.policy(p.id, { protected: true });
    const key = `KEY-${randomUUID()}`;
    const lic = await l.license(pol.id, { key });
    expect(lic.attributes).toMatchObject({ key, protected: true });
    expect(
      expectCode(
        await l.api('POST', '/licenses', { body: doc('licenses', { key }, { policy: ref('policies', pol.id) }) }),
        422,
        'KEY_TAKEN',
      ).source,
    ).toEqual({ pointer: '/data/attributes/key' });
    const raced = `RACE-${randomUUID()}`;
    const replies = await Promise.all(
      Array.from({ length: 10 }, () =>
        l.api('POST', '/licenses', { body: doc('licenses', { key: raced, protected: false }, { policy: ref('policies', pol.id) }) }),
      ),
    );
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 201)[0]!.body.data.attributes.protected).toBe(false);
    expect(replies.filter((r) => r.status === 422)).toHaveLength(10 - 1);
    expectCode(
      await l.api('POST', '/licenses', { body: doc('licenses', {}, { policy: ref('policies', randomUUID()) }) }),
      422,
      'POLICY_NOT_FOUND',
    );
    expectCode(
      await l.api('POST', '/licenses', {
        body: doc('licenses', {}, { policy: ref('policies', pol.id), owner: ref('users', randomUUID()) }),
      }),
      422,
      'OWNER_NOT_FOUND',
    );
    expectCode(
      await l.api('POST', '/licenses', { body: doc('licenses', { expiry: 'soon' }, { policy: ref('policies', pol.id) }) }),
      422,
      'EXPIRY_INVALID',
    );
  });

  it('license bearers: by License <key> and by a license token (200, activ-); they read themselves only', async () => {
    const g = await l.graph();
    const other = await l.license(g.policy.id);
    const reply = await l.api('POST', `/licenses/${g.license.id}/tokens`);
    expect(reply.status).toBe(200);
    expect(reply.body.data.attributes.kind).toBe('activation-token');
    expect(reply.body.data.attributes.token).toMatch(/^activ-[0-9a-f]{64}$/);
    for (const options of [{ token: reply.body.data.attributes.token }, { authorization: `License ${g.license.attributes.key}` }]) {
      expect((await l.api('GET', `/licenses/${g.license.id}`, options)).status).toBe(200);
      expect(ids(await l.api('GET', '/licenses', options))).toEqual([g.license.id]);
      expectCode(await l.api('GET', `/licenses/${other.id}`, options), 404, 'NOT_FOUND');
      expectCode(await l.api('PATCH', `/licenses/${g.license.id}`, { ...options, body: doc('licenses', { name: 'x' }) }), 403);
      expectCode(await l.api('POST', `/licenses/${g.license.id}/tokens`, options), 403);
      expect((await l.api('GET', `/licenses/${g.license.id}/product`, options)).status).toBe(200);
      expect((await l.api('GET', `/licenses/${g.license.id}/policy`, options)).status).toBe(200);
    }
    expectCode(await l.api('GET', '/licenses', { authorization: 'License not-a-key' }), 401, 'LICENSE_INVALID');
  });

  it('a product bearer manages its licenses; a user reads the licenses they own', async () => {
    const user = await newUser(account);
    const g = await l.graph({ owner: user.id });
    const elsewhere = await l.graph();
    const token = await l.productToken(g.product.id);
    const mine = await l.license(g.policy.id, {}, { token });
    expectCode(
      await l.api('POST', '/licenses', { token, body: doc('licenses', {}, { policy: ref('policies', elsewhere.policy.id) }) }),
      422,
      'POLICY_NOT_FOUND',
    );
    expect((await l.api('PATCH', `/licenses/${mine.id}`, { token, body: doc('licenses', { name: 'p' }) })).status).toBe(200);
    expect(ids(await l.api('GET', '/licenses', { token }))).toEqual([mine.id, g.license.id]);
    expectCode(await l.api('GET', `/licenses/${elsewhere.license.id}`, { token }), 404);
    expect((await l.api('POST', `/licenses/${mine.id}/tokens`, { token })).status).toBe(200);
    expect((await l.api('DELETE', `/licenses/${mine.id}`, { token })).status).toBe(204);
    expect(ids(await l.api('GET', '/licenses', { token: user.token }))).toEqual([g.license.id]);
    expect(ids(await l.api('GET', `/users/${user.id}/licenses`, { token: user.token }))).toEqual([g.license.id]);
    expect(ids(await l.api('GET', `/users/${user.id}/licenses`))).toEqual([g.license.id]);
    expectCode(await l.api('GET', `/licenses/${g.license.id}`, { token: (await newUser(account)).token }), 404);
    expectCode(
      await l.api('POST', '/licenses', { token: user.token, body: doc('licenses', {}, { policy: ref('policies', g.policy.id) }) }),
      403,
    );
    expectCode(await l.api('DELETE', `/licenses/${g.license.id}`, { token: user.token }), 403);
  });

  it('filters policy, product, owner/user combine with AND', async () => {
    const user = await newUser(account);
    const g = await l.graph({ owner: user.id });
    const second = await l.policy(g.product.id);
    const a = await l.license(second.id, {}, { owner: user.id });
    const b = await l.license(second.id);
    expect(ids(await l.api('GET', `/licenses?policy=${second.id}`))).toEqual([b.id, a.id]);
    expect(ids(await l.api('GET', `/licenses?product=${g.product.id}`))).toEqual([b.id, a.id, g.license.id]);
    expect(ids(await l.api('GET', `/licenses?owner=${user.id}`))).toEqual([a.id, g.license.id]);
    const both = await l.api('GET', `/licenses?user=${user.id}&policy=${second.id}`);
    expect(ids(both)).toEqual([a.id]);
    expect(both.body.links.meta.count).toBe(1);
  });

  it("filters are UUIDs in any case, on /licenses and a user's licenses alike; anything else is 400 naming the parameter", async () => {
    const user = await newUser(account);
    const g = await l.graph({ owner: user.id });
    const second = await l.policy(g.product.id);
    const other = await l.license(second.id, {}, { owner: user.id });
    expect(ids(await l.api('GET', `/licenses?policy=${g.policy.id.toUpperCase()}`))).toEqual([g.license.id]);
    expect(ids(await l.api('GET', `/users/${user.id}/licenses`))).toEqual([other.id, g.license.id]);
    expect(ids(await l.api('GET', `/users/${user.id}/licenses?policy=${second.id}`))).toEqual([other.id]);
    for (const path of ['/licenses?policy=nope', `/users/${user.id}/licenses?policy=nope`]) {
      expectError(await l.api('GET', path), 400, { code: 'PARAMETERS_INVALID', source: { parameter: 'policy' } });
    }
    expectError(await l.api('GET', '/licenses?owner[]=a'), 400, { code: 'PARAMETERS_INVALID', source: { parameter: 'owner' } });
  });

  it('relationship links resolve: machines, policy, product, owner (null without one)', async () => {
    const user = await newUser(account);
    const g = await l.graph({ owner: user.id });
    const lic = g.license;
    for (const [name, type, id] of [
      ['product', 'products', g.product.id],
      ['policy', 'policies', g.policy.id],
      ['owner', 'users', user.id],
    ]) {
      expect(lic.relationships[name]).toEqual({ links: { related: `${lic.links.self}/${name}` }, data: { type, id } });
      for (const token of [account.adminToken, user.token]) {
        const reply = await call('GET', lic.relationships[name].links.related, { token });
        expect(reply.status, `${name}`).toBe(200);
        expect(reply.body.data.id).toBe(id);
      }
    }
    for (const token of [account.adminToken, user.token])
      expect(ids(await call('GET', lic.relationships.machines.links.related, { token }))).toEqual([g.machine.id]);
    const unowned = await l.license(g.policy.id);
    expect(unowned.relationships.owner.data).toBeNull();
    const none = await call('GET', `${unowned.links.self}/owner`, { token: account.adminToken });
    expect(none.status).toBe(200);
    expect(none.body.data).toBeNull();
    expect((await call('GET', lic.relationships.account.links.related, { token: account.adminToken })).status).toBe(200);
  });
});
