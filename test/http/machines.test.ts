/** Machines: activate on a license (fingerprint unique per license, maxMachines), retrieve, update, deactivate, list, relationships. */
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

const activate = (licenseId: string, fingerprint: string, options: { token?: string; authorization?: string } = {}) =>
  l.api('POST', '/machines', { ...options, body: doc('machines', { fingerprint }, { license: ref('licenses', licenseId) }) });

describe.concurrent('machines', () => {
  it('activates (201), retrieves, updates, deactivates (204) with its components', async () => {
    const g = await l.graph();
    const created = await l.api('POST', '/machines', {
      body: doc(
        'machines',
        { fingerprint: 'host-1', name: 'Build box', hostname: 'box.local', platform: 'linux', metadata: { r: 1 } },
        { license: ref('licenses', g.license.id) },
      ),
    });
    expect(created.status).toBe(201);
    const m = created.body.data;
    expect(m.attributes).toMatchObject({
      fingerprint: 'host-1',
      name: 'Build box',
      hostname: 'box.local',
      platform: 'linux',
      metadata: { r: 1 },
    });
    expect((await l.api('GET', `/machines/${m.id}`)).body.data).toEqual(m);
    const updated = await l.api('PATCH', `/machines/${m.id}`, { body: doc('machines', { name: 'Renamed', platform: null }) });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toMatchObject({ name: 'Renamed', platform: null, hostname: 'box.local' });
    expectCode(await l.api('PATCH', `/machines/${m.id}`, { body: doc('machines', { fingerprint: 'x' }) }), 400);
    const c = await l.component(m.id);
    expect((await l.api('DELETE', `/machines/${m.id}`)).status).toBe(204);
    expectCode(await l.api('GET', `/machines/${m.id}`), 404);
    expectCode(await l.api('GET', `/components/${c.id}`), 404);
  });

  it('fingerprint unique per license: 422 FINGERPRINT_TAKEN; free on another license and after deactivation', async () => {
    const g = await l.graph();
    const other = await l.license(g.policy.id);
    const fingerprint = g.machine.attributes.fingerprint;
    expect(expectCode(await activate(g.license.id, fingerprint), 422, 'FINGERPRINT_TAKEN').source).toEqual({
      pointer: '/data/attributes/fingerprint',
    });
    expect((await activate(other.id, fingerprint)).status).toBe(201);
    expect((await l.api('DELETE', `/machines/${g.machine.id}`)).status).toBe(204);
    expect((await activate(g.license.id, fingerprint)).status).toBe(201);
    expectCode(await activate(randomUUID(), 'x'), 422, 'LICENSE_NOT_FOUND');
    expectCode(await activate(g.license.id, 'f'.repeat(4097)), 422, 'FINGERPRINT_TOO_LONG');
  });

  it('maxMachines: 422 MACHINE_LIMIT_EXCEEDED, sequentially and under concurrency; room again after a deactivation', async () => {
    const g = await l.graph({ policy: { maxMachines: 2 } });
    const second = await activate(g.license.id, `m-${randomUUID()}`);
    expect(second.status).toBe(201);
    expectCode(await activate(g.license.id, `m-${randomUUID()}`), 422, 'MACHINE_LIMIT_EXCEEDED');
    expect((await l.api('DELETE', `/machines/${second.body.data.id}`)).status).toBe(204);
    expect((await activate(g.license.id, `m-${randomUUID()}`)).status).toBe(201);

    const race = await l.license(g.policy.id);
    const replies = await Promise.all(Array.from({ length: 10 }, () => activate(race.id, `r-${randomUUID()}`)));
    expect(replies.filter((r) => r.status === 201)).toHaveLength(2);
    expect(replies.filter((r) => r.status === 422 && r.body.errors[0].code === 'MACHINE_LIMIT_EXCEEDED')).toHaveLength(8);
    expect((await l.api('GET', `/licenses/${race.id}/machines`)).body.links.meta.count).toBe(2);
  });

  it('a license bearer activates, reads and deactivates its own machines, but may not update them', async () => {
    const g = await l.graph();
    const other = await l.graph();
    for (const options of [{ token: await l.licenseToken(g.license.id) }, { authorization: `License ${g.license.attributes.key}` }]) {
      const made = await activate(g.license.id, `lic-${randomUUID()}`, options);
      expect(made.status).toBe(201);
      expect((await l.api('GET', `/machines/${made.body.data.id}`, options)).status).toBe(200);
      expect(ids(await l.api('GET', '/machines', options))).toContain(made.body.data.id);
      expectCode(await l.api('PATCH', `/machines/${made.body.data.id}`, { ...options, body: doc('machines', { name: 'x' }) }), 403);
      expectCode(await activate(other.license.id, 'x', options), 422, 'LICENSE_NOT_FOUND');
      expectCode(await l.api('GET', `/machines/${other.machine.id}`, options), 404);
      expect((await l.api('DELETE', `/machines/${made.body.data.id}`, options)).status).toBe(204);
    }
  });

  it('a user activates on licenses they own unless protected; reads and lists their machines', async () => {
    const user = await newUser(account);
    const g = await l.graph({ owner: user.id });
    const guarded = await l.graph({ owner: user.id, policy: { protected: true } });
    const stranger = await l.graph();
    const made = await activate(g.license.id, `u-${randomUUID()}`, { token: user.token });
    expect(made.status).toBe(201);
    expect(made.body.data.relationships.owner.data).toEqual({ type: 'users', id: user.id });
    expectCode(await activate(guarded.license.id, `u-${randomUUID()}`, { token: user.token }), 403);
    expectCode(await activate(stranger.license.id, `u-${randomUUID()}`, { token: user.token }), 422, 'LICENSE_NOT_FOUND');
    expect(ids(await l.api('GET', '/machines', { token: user.token }))).toEqual([made.body.data.id, guarded.machine.id, g.machine.id]);
    expect(ids(await l.api('GET', `/users/${user.id}/machines`))).toEqual([made.body.data.id, guarded.machine.id, g.machine.id]);
    expectCode(await l.api('GET', `/machines/${stranger.machine.id}`, { token: user.token }), 404);
    expectCode(await l.api('DELETE', `/machines/${guarded.machine.id}`, { token: user.token }), 403);
    expect((await l.api('DELETE', `/machines/${made.body.data.id}`, { token: user.token })).status).toBe(204);
  });

  it('filters license, owner/user, product; a product bearer sees its product only', async () => {
    const user = await newUser(account);
    const g = await l.graph({ owner: user.id });
    const second = await l.machine(g.license.id);
    const other = await l.graph();
    expect(ids(await l.api('GET', `/machines?license=${g.license.id}`))).toEqual([second.id, g.machine.id]);
    expect(ids(await l.api('GET', `/machines?owner=${user.id}`))).toEqual([second.id, g.machine.id]);
    expect(ids(await l.api('GET', `/machines?product=${g.product.id}&user=${user.id}&license=${g.license.id}`))).toEqual([
      second.id,
      g.machine.id,
    ]);
    expect(ids(await l.api('GET', `/machines?product=${other.product.id}&license=${g.license.id}`))).toEqual([]);
    const token = await l.productToken(g.product.id);
    expect(ids(await l.api('GET', '/machines', { token }))).toEqual([second.id, g.machine.id]);
    expect((await l.api('PATCH', `/machines/${second.id}`, { token, body: doc('machines', { name: 'p' }) })).status).toBe(200);
    expectCode(await l.api('GET', `/machines/${other.machine.id}`, { token }), 404);
  });

  it("a license's, a user's and a machine's lists take the filters of their type; a filter that is no UUID is 400 naming it", async () => {
    const user = await newUser(account);
    const g = await l.graph({ owner: user.id });
    const elsewhere = await l.graph({ owner: user.id });
    const c = await l.component(g.machine.id);
    expect(ids(await l.api('GET', `/users/${user.id}/machines?license=${g.license.id}`))).toEqual([g.machine.id]);
    expect(ids(await l.api('GET', `/licenses/${g.license.id}/machines?product=${elsewhere.product.id}`))).toEqual([]);
    expect(ids(await l.api('GET', `/machines/${g.machine.id}/components?license=${g.license.id.toUpperCase()}`))).toEqual([c.id]);
    const refused: [string, string][] = [
      ['/machines?license=nope', 'license'],
      [`/users/${user.id}/machines?product=nope`, 'product'],
      [`/licenses/${g.license.id}/machines?owner=nope`, 'owner'],
      [`/machines/${g.machine.id}/components?license=nope`, 'license'],
    ];
    for (const [path, parameter] of refused) {
      expectError(await l.api('GET', path), 400, { code: 'PARAMETERS_INVALID', source: { parameter } });
    }
  });

  it('relationship links resolve: license, product, owner, components, account', async () => {
    const user = await newUser(account);
    const g = await l.graph({ owner: user.id });
    const c = await l.component(g.machine.id);
    const m = g.machine;
    expect(m.relationships.license).toEqual({
      links: { related: `${m.links.self}/license` },
      data: { type: 'licenses', id: g.license.id },
    });
    for (const token of [account.adminToken, user.token]) {
      expect((await call('GET', m.relationships.license.links.related, { token })).body.data.id).toBe(g.license.id);
      expect(ids(await call('GET', m.relationships.components.links.related, { token }))).toEqual([c.id]);
      expect((await call('GET', m.relationships.product.links.related, { token })).body.data.id).toBe(g.product.id);
      expect((await call('GET', m.relationships.owner.links.related, { token })).body.data.id).toBe(user.id);
    }
    expect((await call('GET', m.relationships.account.links.related, { token: account.adminToken })).status).toBe(200);
  });
});
