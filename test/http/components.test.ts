/**
 * Components (docs/rules.md §23, §9): the resource, its endpoints and its list parameters.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount, newUser, type TestAccount } from '../support/client.ts';
import { doc, expectCode, ids, licensing, ref } from '../support/licensing.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
});

describe.concurrent('components', () => {
  it('adds a component: 201 with the documented attributes, relationships and links', async () => {
    const g = await l.graph();
    const reply = await l.api('POST', '/components', {
      body: doc('components', { fingerprint: 'CPU-1234', name: 'CPU', metadata: { cores: 8 } }, { machine: ref('machines', g.machine.id) }),
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const c = reply.body.data;
    expect(c.type).toBe('components');
    expect(c.attributes).toEqual({
      fingerprint: 'CPU-1234',
      name: 'CPU',
      metadata: { cores: 8 },
      created: expect.any(String),
      updated: expect.any(String),
    });
    expect(c.links.self).toBe(`${account.path}/components/${c.id}`);
    expect(c.relationships.account).toEqual({ links: { related: account.path }, data: { type: 'accounts', id: account.id } });
    for (const [name, type, id] of [
      ['product', 'products', g.product.id],
      ['license', 'licenses', g.license.id],
      ['machine', 'machines', g.machine.id],
    ]) {
      expect(c.relationships[name]).toEqual({ links: { related: `${account.path}/components/${c.id}/${name}` }, data: { type, id } });
    }
    expect(c.relationships.environment).toEqual({ data: null });
  });

  it('retrieves, updates name and metadata (metadata replaced whole), and keeps omitted attributes', async () => {
    const g = await l.graph();
    const c = await l.component(g.machine.id, 'fp-up', { attributes: { metadata: { a: 1, b: 2 } } });
    const got = await l.api('GET', `/components/${c.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(c);
    const renamed = await l.api('PATCH', `/components/${c.id}`, { body: doc('components', { name: 'Renamed' }) });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.attributes).toMatchObject({ fingerprint: 'fp-up', name: 'Renamed', metadata: { a: 1, b: 2 } });
    const meta = await l.api('PATCH', `/components/${c.id}`, {
      body: { data: { type: 'components', id: c.id, attributes: { metadata: { c: 3 } } } },
    });
    expect(meta.status).toBe(200);
    expect(meta.body.data.attributes).toMatchObject({ name: 'Renamed', metadata: { c: 3 } });
    expect((await l.api('GET', `/components/${c.id}`)).body.data.attributes.metadata).toEqual({ c: 3 });
  });

  it('refuses fingerprint on update: 400 unpermitted parameter, nothing changes', async () => {
    const g = await l.graph();
    const c = await l.component(g.machine.id, 'fixed');
    const reply = await l.api('PATCH', `/components/${c.id}`, { body: doc('components', { name: 'X', fingerprint: 'other' }) });
    const error = expectCode(reply, 400, 'PARAMETER_INVALID');
    expect(error).toMatchObject({ detail: 'unpermitted parameter', source: { pointer: '/data/attributes/fingerprint' } });
    expect((await l.api('GET', `/components/${c.id}`)).body.data.attributes).toMatchObject({
      fingerprint: 'fixed',
      name: c.attributes.name,
    });
  });

  it('removes a component: 204 with an empty body, permanently', async () => {
    const g = await l.graph();
    const c = await l.component(g.machine.id);
    const reply = await l.api('DELETE', `/components/${c.id}`);
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    expectCode(await l.api('GET', `/components/${c.id}`), 404, 'NOT_FOUND');
    expectCode(await l.api('DELETE', `/components/${c.id}`), 404, 'NOT_FOUND');
  });

  it('body shape: fingerprint and name required (400 is missing), machine relationship required', async () => {
    const g = await l.graph();
    const post = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) =>
      l.api('POST', '/components', { body: doc('components', attributes, relationships) });
    const machine = { machine: ref('machines', g.machine.id) };
    expect(expectCode(await post({ name: 'n' }, machine), 400).source).toEqual({ pointer: '/data/attributes/fingerprint' });
    expect(expectCode(await post({ fingerprint: 'f' }, machine), 400).source).toEqual({ pointer: '/data/attributes/name' });
    expect(expectCode(await post({ fingerprint: 'f', name: 'n' }), 400).source).toEqual({ pointer: '/data/relationships' });
    expect(expectCode(await post({ fingerprint: ' ', name: 'n' }, machine), 400).detail).toBe('cannot be blank');
  });

  it('model rules: MACHINE_NOT_FOUND, FINGERPRINT_TOO_LONG (> 4 KB), NAME_TOO_LONG, METADATA_TOO_LARGE', async () => {
    const g = await l.graph();
    const post = (attributes: Record<string, unknown>, machineId = g.machine.id) =>
      l.api('POST', '/components', {
        body: doc('components', { fingerprint: randomUUID(), name: 'n', ...attributes }, { machine: ref('machines', machineId) }),
      });
    expect(expectCode(await post({}, randomUUID()), 422, 'MACHINE_NOT_FOUND').source).toEqual({ pointer: '/data/relationships/machine' });
    expectCode(await post({}, 'not-a-uuid'), 422, 'MACHINE_NOT_FOUND');
    expectCode(await post({ fingerprint: 'x'.repeat(4097) }), 422, 'FINGERPRINT_TOO_LONG');
    expect((await post({ fingerprint: 'y'.repeat(4096) })).status).toBe(201);
    expectCode(await post({ name: 'n'.repeat(256) }), 422, 'NAME_TOO_LONG');
    expectCode(await post({ metadata: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i])) }), 422, 'METADATA_TOO_LARGE');
  });

  it('every emitted link resolves (200) for the admin', async () => {
    const g = await l.graph();
    const c = await l.component(g.machine.id);
    const links = [
      c.links.self,
      ...Object.values(c.relationships)
        .map((r: any) => r.links?.related)
        .filter(Boolean),
    ];
    for (const link of links) {
      const reply = await call('GET', link, { token: account.adminToken });
      expect(reply.status, link).toBe(200);
    }
    expect((await call('GET', `${c.links.self}/machine`, { token: account.adminToken })).body.data.id).toBe(g.machine.id);
    expect((await call('GET', `${c.links.self}/license`, { token: account.adminToken })).body.data.id).toBe(g.license.id);
    expect((await call('GET', `${c.links.self}/product`, { token: account.adminToken })).body.data.id).toBe(g.product.id);
  });
});

describe('GET /components: filters, order, pages', () => {
  let fixture: {
    users: string[];
    a: Awaited<ReturnType<ReturnType<typeof licensing>['graph']>>;
    b: Awaited<ReturnType<ReturnType<typeof licensing>['graph']>>;
    a2: { id: string };
    made: Record<string, string[]>;
  };
  beforeAll(async () => {
    const [u1, u2] = await Promise.all([newUser(account), newUser(account)]);
    const a = await l.graph({ owner: u1.id });
    const b = await l.graph({ owner: u2.id });
    const a2 = await l.machine(a.license.id);
    const made: Record<string, string[]> = { a: [], a2: [], b: [] };
    // Sequential, so the order of creation is the order of `created`.
    for (const [key, machine] of [
      ['a', a.machine.id],
      ['b', b.machine.id],
      ['a2', a2.id],
      ['a', a.machine.id],
      ['b', b.machine.id],
    ] as const) {
      made[key]!.push((await l.component(machine)).id);
    }
    fixture = { users: [u1.id, u2.id], a, b, a2, made };
  });
  const list = (query: string) => l.api('GET', `/components${query}`);
  const newest = (...groups: string[][]) => groups.flat();

  it('lists newest first with links.meta for each filter alone', async () => {
    const { a, b, made, users } = fixture;
    const all = ids(await list('?page[size]=100'));
    const mine = [...made.a!, ...made.a2!, ...made.b!];
    expect(all.filter((id) => mine.includes(id))).toEqual([made.b![1], made.a![1], made.a2![0], made.b![0], made.a![0]]);
    expect(ids(await list(`?machine=${a.machine.id}`))).toEqual([made.a![1], made.a![0]]);
    expect(ids(await list(`?license=${a.license.id}`))).toEqual([made.a![1], made.a2![0], made.a![0]]);
    expect(ids(await list(`?owner=${users[0]}`))).toEqual([made.a![1], made.a2![0], made.a![0]]);
    expect(ids(await list(`?user=${users[1]}`))).toEqual([made.b![1], made.b![0]]);
    expect(ids(await list(`?product=${b.product.id}`))).toEqual([made.b![1], made.b![0]]);
    const counted = await list(`?license=${a.license.id}&page[size]=2`);
    expect(counted.body.links.meta).toEqual({ pages: 2, count: 3 });
    expect(newest).toBeDefined();
  });

  it('combines filters with AND, counting the narrower collection', async () => {
    const { a, b, made, users } = fixture;
    const both = await list(`?license=${a.license.id}&machine=${fixture.a2.id}`);
    expect(ids(both)).toEqual(made.a2);
    expect(both.body.links.meta).toEqual({ pages: 1, count: 1 });
    expect(ids(await list(`?product=${a.product.id}&owner=${users[0]}&machine=${a.machine.id}`))).toEqual([made.a![1], made.a![0]]);
    const none = await list(`?product=${b.product.id}&license=${a.license.id}`);
    expect(ids(none)).toEqual([]);
    expect(none.body.links.meta).toEqual({ pages: 0, count: 0 });
    expect(ids(await list(`?owner=${users[0]}&user=${users[1]}`))).toEqual([]);
    expect(ids(await list(`?machine=${randomUUID()}`))).toEqual([]);
  });

  it('pages by number and by cursor through a filtered list, links keeping the filter', async () => {
    const { a, made } = fixture;
    const first = await list(`?license=${a.license.id}&page[size]=2&page[number]=1`);
    const second = await list(`?license=${a.license.id}&page[size]=2&page[number]=2`);
    expect([...ids(first), ...ids(second)]).toEqual([made.a![1], made.a2![0], made.a![0]]);
    expect(first.body.links.next).toContain(`license=${a.license.id}`);
    expect(ids(await call('GET', first.body.links.next, { token: account.adminToken }))).toEqual(ids(second));
    const byCursor = await list(`?license=${a.license.id}&page[size]=2&page[cursor]=`);
    const rest = await call('GET', byCursor.body.links.next, { token: account.adminToken });
    expect([...ids(byCursor), ...ids(rest)]).toEqual([made.a![1], made.a2![0], made.a![0]]);
    expect(rest.body.links.next).toBeNull();
  });

  it('limit is the page size; out-of-range limit or a non-UUID filter → 400', async () => {
    const { a } = fixture;
    expect(ids(await list(`?license=${a.license.id}&limit=1`))).toHaveLength(1);
    expect(expectCode(await list('?limit=101'), 400, 'PARAMETERS_INVALID').source).toEqual({ parameter: 'limit' });
    expect(expectCode(await list('?machine=nope'), 400, 'PARAMETERS_INVALID').source).toEqual({ parameter: 'machine' });
  });
});
