/**
 * Uniqueness judged over everything in scope (docs/rules.md §21.1, §23.2): a strategy refuses a fingerprint
 * any record in its scope holds, whichever strategy that record was created under, for components
 * (componentUniquenessStrategy) and machines (machineUniquenessStrategy); deletes free the value in
 * every scope; concurrent creates leave exactly one winner and counts equal to the holders. And the
 * components a machine is activated with (`relationships.components`): all or nothing.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintValue, type Level } from '#shared/licensing/fingerprints.ts';
import { fingerprintCountKey } from '#shared/store/keys.ts';
import { getItem } from '#shared/store/records.ts';
import { call, newAccount, type TestAccount } from '../support/client.ts';
import { doc, expectCode, licensing, listeningAccount, ref } from '../support/licensing.ts';
import type { Receiver } from '../support/receiver.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
});

type Options = { environment?: string };
type Nested = { fingerprint: string; name?: string; metadata?: Record<string, unknown> };

const nested = (components: Nested[]) => ({
  components: { data: components.map(({ name, ...rest }) => ({ type: 'components', attributes: { name: name ?? 'Part', ...rest } })) },
});

const activate = (licenseId: string, fingerprint: string, components?: Nested[], options: Options = {}) =>
  l.api('POST', '/machines', {
    ...options,
    body: doc('machines', { fingerprint }, { license: ref('licenses', licenseId), ...(components ? nested(components) : {}) }),
  });

const add = (machineId: string, fingerprint: string) =>
  l.api('POST', '/components', { body: doc('components', { fingerprint, name: 'Part' }, { machine: ref('machines', machineId) }) });

/** The count of a fingerprint's holders in a scope, as stored (0 when there is none). */
async function holders(kind: 'MACHINE' | 'COMPONENT', level: Level, scopeId: string, fingerprint: string): Promise<number> {
  const item = await getItem(fingerprintCountKey(account.id, kind, fingerprintValue(level, scopeId, fingerprint)));
  return Number(item?.n ?? 0);
}

/**
 * Records spread over the scopes around a first one: its license (`sameLicense`), another license of
 * its policy, a license of another policy of its product, a license of another product. Each new
 * policy is made under `policy`; the first policy too, once the first record is made.
 */
type Graph = Awaited<ReturnType<typeof l.graph>>;

/** The paths that remove a graph's records, each with what hangs on it. */
const removalPaths = (g: Graph, c?: { id: string }) => ({
  ...(c ? { component: `/components/${c.id}` } : {}),
  machine: `/machines/${g.machine.id}`,
  license: `/licenses/${g.license.id}`,
  policy: `/policies/${g.policy.id}`,
  product: `/products/${g.product.id}`,
});

/** The scopes wider than a record of the graph, narrowest first, down to `from`. */
const widerScopes = (g: Graph, from: Level) => {
  const scopes = [
    ['license', g.license.id],
    ['policy', g.policy.id],
    ['product', g.product.id],
    ['account', account.id],
  ] as const;
  return scopes.slice(scopes.findIndex(([level]) => level === from));
};

async function spread(policy: Record<string, unknown>) {
  const first = await l.graph();
  const samePolicy = await l.license(first.policy.id);
  const sameProduct = await l.license((await l.policy(first.product.id, policy)).id);
  const otherProduct = (await l.graph({ policy })).license;
  return { first, licenses: { sameLicense: first.license, samePolicy, sameProduct, otherProduct } };
}

const PLACES = ['otherProduct', 'sameProduct', 'samePolicy', 'sameLicense'] as const;

/** Where a fingerprint already held in `sameLicense` is refused, by the strategy of the new record's policy. */
const REFUSED: Record<string, readonly (typeof PLACES)[number][]> = {
  UNIQUE_PER_LICENSE: ['sameLicense'],
  UNIQUE_PER_POLICY: ['sameLicense', 'samePolicy'],
  UNIQUE_PER_PRODUCT: ['sameLicense', 'samePolicy', 'sameProduct'],
  UNIQUE_PER_ACCOUNT: PLACES,
};

describe.concurrent('components: each strategy judged against components made under UNIQUE_PER_MACHINE', () => {
  for (const [strategy, refused] of Object.entries(REFUSED)) {
    it(`${strategy}: refuses the fingerprint exactly within its scope`, async () => {
      const policy = { componentUniquenessStrategy: strategy };
      const { first, licenses } = await spread(policy);
      const fingerprint = `narrow-${randomUUID()}`;
      // Made while its policy judged fingerprints on the machine only.
      expect((await add(first.machine.id, fingerprint)).status).toBe(201);
      expect((await l.api('PATCH', `/policies/${first.policy.id}`, { body: doc('policies', policy) })).status).toBe(200);
      // Most distant first, so an accepted create never shadows a nearer one.
      for (const place of PLACES) {
        const machine = await l.machine(licenses[place].id);
        const reply = await add(machine.id, fingerprint);
        if (refused.includes(place)) {
          const error = expectCode(reply, 422, 'FINGERPRINT_TAKEN');
          expect(error.source).toEqual({ pointer: '/data/attributes/fingerprint' });
          expect(error.detail).toContain(strategy);
        } else {
          expect(reply.status, `${strategy} ${place}: ${JSON.stringify(reply.body)}`).toBe(201);
        }
      }
    });
  }

  it('UNIQUE_PER_ACCOUNT refuses a fingerprint of a component made under UNIQUE_PER_MACHINE of another product, in any environment', async () => {
    const code = `uniq-${randomUUID().slice(0, 8)}`;
    await call('POST', `${account.path}/environments`, {
      token: account.adminToken,
      body: { data: { type: 'environments', attributes: { name: code, code } } },
    });
    const inside = await l.graph({ environment: code });
    const fingerprint = `any-env-${randomUUID()}`;
    await l.component(inside.machine.id, fingerprint, { environment: code });
    const strict = await l.graph({ policy: { componentUniquenessStrategy: 'UNIQUE_PER_ACCOUNT' } });
    expectCode(await add(strict.machine.id, fingerprint), 422, 'FINGERPRINT_TAKEN');
    expect(await holders('COMPONENT', 'account', account.id, fingerprint)).toBe(1);
  });

  it('a narrower strategy still refuses on the machine of a component made under a wider one, and accepts elsewhere', async () => {
    const g = await l.graph({ policy: { componentUniquenessStrategy: 'UNIQUE_PER_ACCOUNT' } });
    const fingerprint = `wide-${randomUUID()}`;
    await l.component(g.machine.id, fingerprint);
    await l.api('PATCH', `/policies/${g.policy.id}`, { body: doc('policies', { componentUniquenessStrategy: 'UNIQUE_PER_MACHINE' }) });
    expect(expectCode(await add(g.machine.id, fingerprint), 422, 'FINGERPRINT_TAKEN').detail).toContain('UNIQUE_PER_MACHINE');
    expect((await add((await l.machine(g.license.id)).id, fingerprint)).status).toBe(201);
    for (const [level, id] of widerScopes(g, 'license')) {
      expect(await holders('COMPONENT', level, id, fingerprint), level).toBe(2);
    }
  });
});

describe.concurrent('machines: machineUniquenessStrategy', () => {
  it('defaults to UNIQUE_PER_LICENSE, takes the four strategies, and refuses any other: 422 MACHINE_UNIQUENESS_STRATEGY_NOT_ALLOWED', async () => {
    const p = await l.product();
    expect((await l.policy(p.id)).attributes.machineUniquenessStrategy).toBe('UNIQUE_PER_LICENSE');
    for (const strategy of Object.keys(REFUSED)) {
      expect((await l.policy(p.id, { machineUniquenessStrategy: strategy })).attributes.machineUniquenessStrategy).toBe(strategy);
    }
    const pointer = { pointer: '/data/attributes/machineUniquenessStrategy' };
    for (const strategy of ['UNIQUE_PER_MACHINE', 'unique_per_license', '']) {
      const made = await l.api('POST', '/policies', {
        body: doc('policies', { name: 'x', machineUniquenessStrategy: strategy }, { product: ref('products', p.id) }),
      });
      expect(expectCode(made, 422, 'MACHINE_UNIQUENESS_STRATEGY_NOT_ALLOWED').source).toEqual(pointer);
    }
    const policy = await l.policy(p.id);
    const patched = await l.api('PATCH', `/policies/${policy.id}`, {
      body: doc('policies', { machineUniquenessStrategy: 'UNIQUE_PER_GALAXY' }),
    });
    expect(expectCode(patched, 422, 'MACHINE_UNIQUENESS_STRATEGY_NOT_ALLOWED').source).toEqual(pointer);
    const changed = await l.api('PATCH', `/policies/${policy.id}`, {
      body: doc('policies', { machineUniquenessStrategy: 'UNIQUE_PER_PRODUCT' }),
    });
    expect(changed.body.data.attributes.machineUniquenessStrategy).toBe('UNIQUE_PER_PRODUCT');
  });

  for (const [strategy, refused] of Object.entries(REFUSED)) {
    it(`${strategy}: refuses a fingerprint activated under UNIQUE_PER_LICENSE exactly within its scope`, async () => {
      const policy = { machineUniquenessStrategy: strategy };
      const { first, licenses } = await spread(policy);
      const fingerprint = first.machine.attributes.fingerprint as string;
      expect((await l.api('PATCH', `/policies/${first.policy.id}`, { body: doc('policies', policy) })).status).toBe(200);
      for (const place of PLACES) {
        const reply = await activate(licenses[place].id, fingerprint);
        if (refused.includes(place)) {
          const error = expectCode(reply, 422, 'FINGERPRINT_TAKEN');
          expect(error.source).toEqual({ pointer: '/data/attributes/fingerprint' });
        } else {
          expect(reply.status, `${strategy} ${place}: ${JSON.stringify(reply.body)}`).toBe(201);
        }
      }
    });
  }

  it('validation still finds a machine by its fingerprint within its license, whatever the strategy', async () => {
    const g = await l.graph({ policy: { machineUniquenessStrategy: 'UNIQUE_PER_ACCOUNT' } });
    const validated = await call('POST', `${account.path}/licenses/actions/validate-key`, {
      body: { meta: { key: g.license.attributes.key, scope: { fingerprint: g.machine.attributes.fingerprint } } },
    });
    expect(validated.body.meta).toMatchObject({ valid: true, code: 'VALID' });
  });
});

describe.concurrent('deletes free the value in every scope', () => {
  it('a component: its removal, its machine, license, policy or product', async () => {
    const strict = (await l.graph({ policy: { componentUniquenessStrategy: 'UNIQUE_PER_ACCOUNT' } })).machine;
    for (const removed of ['component', 'machine', 'license', 'policy', 'product'] as const) {
      const g = await l.graph();
      const fingerprint = `free-${removed}-${randomUUID()}`;
      const c = await l.component(g.machine.id, fingerprint);
      expectCode(await add(strict.id, fingerprint), 422, 'FINGERPRINT_TAKEN');
      const paths: Record<string, string> = removalPaths(g, c);
      expect((await l.api('DELETE', paths[removed] ?? '')).status).toBe(204);
      for (const [level, id] of widerScopes(g, 'license')) {
        expect(await holders('COMPONENT', level, id, fingerprint), `${removed}: ${level}`).toBe(0);
      }
      expect((await add(strict.id, fingerprint)).status).toBe(201);
    }
  });

  it('a machine: its deactivation, its license, policy or product', async () => {
    const strict = await l.graph({ policy: { machineUniquenessStrategy: 'UNIQUE_PER_ACCOUNT' } });
    for (const removed of ['machine', 'license', 'policy', 'product'] as const) {
      const g = await l.graph();
      const fingerprint = g.machine.attributes.fingerprint as string;
      expectCode(await activate(strict.license.id, fingerprint), 422, 'FINGERPRINT_TAKEN');
      expect((await l.api('DELETE', removalPaths(g)[removed])).status).toBe(204);
      for (const [level, id] of widerScopes(g, 'policy')) {
        expect(await holders('MACHINE', level, id, fingerprint), `${removed}: ${level}`).toBe(0);
      }
      expect((await activate(strict.license.id, fingerprint)).status).toBe(201);
    }
  });
});

describe.concurrent('20 concurrent creates', () => {
  it('machines under UNIQUE_PER_ACCOUNT on 20 licenses of 4 products: exactly one wins; the counts hold its one holder', async () => {
    const graphs = await Promise.all(
      Array.from({ length: 4 }, () => l.graph({ policy: { machineUniquenessStrategy: 'UNIQUE_PER_ACCOUNT' } })),
    );
    const licenses = (await Promise.all(graphs.flatMap((g) => Array.from({ length: 5 }, () => l.license(g.policy.id))))).map((x) => x.id);
    const fingerprint = `race-machine-${randomUUID()}`;
    const replies = await Promise.all(licenses.map((id) => activate(id, fingerprint)));
    const winners = replies.filter((r) => r.status === 201);
    expect(winners).toHaveLength(1);
    expect(replies.filter((r) => r.status === 422 && r.body.errors[0].code === 'FINGERPRINT_TAKEN')).toHaveLength(19);
    const winner = graphs.find((g) => g.product.id === winners[0]!.body.data.relationships.product.data.id)!;
    expect(await holders('MACHINE', 'account', account.id, fingerprint)).toBe(1);
    expect(await holders('MACHINE', 'product', winner.product.id, fingerprint)).toBe(1);
    for (const g of graphs.filter((x) => x !== winner)) expect(await holders('MACHINE', 'product', g.product.id, fingerprint)).toBe(0);
  });

  it('components under UNIQUE_PER_PRODUCT and UNIQUE_PER_MACHINE at once: at most one judged by the product wins, every other is held, the counts equal the holders', async () => {
    const g = await l.graph();
    const wide = await l.policy(g.product.id, { componentUniquenessStrategy: 'UNIQUE_PER_PRODUCT' });
    const wideMachines = await Promise.all(Array.from({ length: 10 }, async () => (await l.machine((await l.license(wide.id)).id)).id));
    const narrowMachines = await Promise.all(Array.from({ length: 10 }, async () => (await l.machine(g.license.id)).id));
    const fingerprint = `race-mixed-${randomUUID()}`;
    const targets = wideMachines.flatMap((id, i) => [id, narrowMachines[i]!]);
    const replies = await Promise.all(targets.map((id) => add(id, fingerprint)));
    const made = (ids: string[]) => replies.filter((r, i) => r.status === 201 && ids.includes(targets[i]!)).length;
    // Judged on its machine, each narrow create holds its own; a wide one only while the product held nothing.
    expect(made(narrowMachines)).toBe(10);
    expect(made(wideMachines)).toBeLessThanOrEqual(1);
    expect(replies.filter((r) => r.status !== 201).every((r) => r.status === 422 && r.body.errors[0].code === 'FINGERPRINT_TAKEN')).toBe(
      true,
    );
    const total = made(narrowMachines) + made(wideMachines);
    expect(await holders('COMPONENT', 'product', g.product.id, fingerprint)).toBe(total);
    expect(await holders('COMPONENT', 'account', account.id, fingerprint)).toBe(total);
    expect(await holders('COMPONENT', 'license', g.license.id, fingerprint)).toBe(10);
    expect(await holders('COMPONENT', 'policy', wide.id, fingerprint)).toBe(made(wideMachines));
    const listed = await l.api('GET', `/components?product=${g.product.id}&page[size]=100`);
    expect(listed.body.data.filter((c: any) => c.attributes.fingerprint === fingerprint)).toHaveLength(total);
  });
});

describe.concurrent('components created with their machine', () => {
  it('each is created and listed under the machine; the answer is the machine as without them', async () => {
    const g = await l.graph();
    const components = [
      { fingerprint: `cpu-${randomUUID()}`, name: 'CPU', metadata: { cores: 8 } },
      { fingerprint: `disk-${randomUUID()}`, name: 'Disk' },
      { fingerprint: `mac-${randomUUID()}`, name: 'NIC' },
    ];
    const made = await activate(g.license.id, `host-${randomUUID()}`, components);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const machine = made.body.data;
    expect((await l.api('GET', `/machines/${machine.id}`)).body.data).toEqual(machine);
    const listed = await l.api('GET', `/machines/${machine.id}/components`);
    expect(listed.body.links.meta.count).toBe(3);
    expect(
      listed.body.data
        .map((c: any) => ({ fingerprint: c.attributes.fingerprint, name: c.attributes.name, machine: c.relationships.machine.data.id }))
        .sort((a: any, b: any) => a.fingerprint.localeCompare(b.fingerprint)),
    ).toEqual(
      components
        .map(({ fingerprint, name }) => ({ fingerprint, name, machine: machine.id }))
        .sort((a, b) => a.fingerprint.localeCompare(b.fingerprint)),
    );
    expect(listed.body.data.find((c: any) => c.attributes.name === 'CPU').attributes.metadata).toEqual({ cores: 8 });
    // Each is judged later like any other component of the machine.
    expectCode(await add(machine.id, components[0]!.fingerprint), 422, 'FINGERPRINT_TAKEN');
    expect(await holders('COMPONENT', 'license', g.license.id, components[1]!.fingerprint)).toBe(1);
  });

  it('all or nothing: a fingerprint an existing component holds in the strategy’s scope refuses the whole activation', async () => {
    const policy = { componentUniquenessStrategy: 'UNIQUE_PER_ACCOUNT' };
    const g = await l.graph({ policy });
    const held = `held-${randomUUID()}`;
    await l.component((await l.graph()).machine.id, held);
    const free = `free-${randomUUID()}`;
    const host = `host-${randomUUID()}`;
    const refused = await activate(g.license.id, host, [{ fingerprint: free }, { fingerprint: held }]);
    const error = expectCode(refused, 422, 'FINGERPRINT_TAKEN');
    expect(error.source).toEqual({ pointer: '/data/relationships/components/data/1/attributes/fingerprint' });
    expect(error.detail).toContain('UNIQUE_PER_ACCOUNT');
    await expectNothingMade(g, host, [free]);
    // Without it, the same activation goes through.
    expect((await activate(g.license.id, host, [{ fingerprint: free }])).status).toBe(201);
  });

  it('all or nothing: two components with one fingerprint, or one breaking a component rule', async () => {
    const g = await l.graph();
    const host = `host-${randomUUID()}`;
    const [a, b] = [`a-${randomUUID()}`, `b-${randomUUID()}`];
    const twice = await activate(g.license.id, host, [{ fingerprint: a }, { fingerprint: b }, { fingerprint: a }]);
    expect(expectCode(twice, 422, 'FINGERPRINT_TAKEN').source).toEqual({
      pointer: '/data/relationships/components/data/2/attributes/fingerprint',
    });
    const tooLong = await activate(g.license.id, host, [{ fingerprint: a }, { fingerprint: 'f'.repeat(4097) }]);
    expect(expectCode(tooLong, 422, 'FINGERPRINT_TOO_LONG').source).toEqual({
      pointer: '/data/relationships/components/data/1/attributes/fingerprint',
    });
    const longName = await activate(g.license.id, host, [{ fingerprint: a, name: 'n'.repeat(256) }]);
    expect(expectCode(longName, 422, 'NAME_TOO_LONG').source).toEqual({ pointer: '/data/relationships/components/data/0/attributes/name' });
    await expectNothingMade(g, host, [a, b]);
  });

  it('a bearer without component.create may activate a machine, but not with components: 403', async () => {
    const g = await l.graph();
    const narrow = await l.api('POST', `/licenses/${g.license.id}/tokens`, {
      body: doc('tokens', { permissions: ['machine.create', 'machine.read'] }),
    });
    const token = narrow.body.data.attributes.token as string;
    const host = `host-${randomUUID()}`;
    const part = `part-${randomUUID()}`;
    expectCode(
      await l.api('POST', '/machines', {
        token,
        body: doc('machines', { fingerprint: host }, { license: ref('licenses', g.license.id), ...nested([{ fingerprint: part }]) }),
      }),
      403,
    );
    await expectNothingMade(g, host, [part]);
    const plain = await l.api('POST', '/machines', {
      token,
      body: doc('machines', { fingerprint: host }, { license: ref('licenses', g.license.id) }),
    });
    expect(plain.status).toBe(201);
  });

  it('a body that is not a list of components, or more than 20 of them, is 400', async () => {
    const g = await l.graph();
    const host = `host-${randomUUID()}`;
    const many = Array.from({ length: 21 }, (_, i) => ({ fingerprint: `part-${i}-${randomUUID()}` }));
    expect(expectCode(await activate(g.license.id, host, many), 400).source).toEqual({ pointer: '/data/relationships/components/data' });
    const missing = await l.api('POST', '/machines', {
      body: doc(
        'machines',
        { fingerprint: host },
        { license: ref('licenses', g.license.id), components: { data: [{ type: 'components', attributes: { name: 'x' } }] } },
      ),
    });
    expect(expectCode(missing, 400).source).toEqual({ pointer: '/data/relationships/components/data/0/attributes/fingerprint' });
    const wrongType = await l.api('POST', '/machines', {
      body: doc(
        'machines',
        { fingerprint: host },
        {
          license: ref('licenses', g.license.id),
          components: { data: [{ type: 'machines', attributes: { fingerprint: 'x', name: 'x' } }] },
        },
      ),
    });
    expect(expectCode(wrongType, 400).source).toEqual({ pointer: '/data/relationships/components/data/0/type' });
    await expectNothingMade(
      g,
      host,
      many.map((c) => c.fingerprint),
    );
  });

  it('20 components, inside a SHARED environment on a global license: all made, counted, and freed with the license', async () => {
    const code = `nest-${randomUUID().slice(0, 8)}`;
    await call('POST', `${account.path}/environments`, {
      token: account.adminToken,
      body: { data: { type: 'environments', attributes: { name: code, code, isolationStrategy: 'SHARED' } } },
    });
    const g = await l.graph({ policy: { componentUniquenessStrategy: 'UNIQUE_PER_ACCOUNT' } });
    const components = Array.from({ length: 20 }, (_, i) => ({ fingerprint: `twenty-${i}-${randomUUID()}`, name: `Part ${i}` }));
    const made = await activate(g.license.id, `host-${randomUUID()}`, components, { environment: code });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const listed = await l.api('GET', `/machines/${made.body.data.id}/components?page[size]=100`, { environment: code });
    expect(listed.body.links.meta.count).toBe(20);
    expect(listed.body.data.map((c: any) => c.attributes.fingerprint).sort()).toEqual(components.map((c) => c.fingerprint).sort());
    for (const { fingerprint } of components) expect(await holders('COMPONENT', 'account', account.id, fingerprint)).toBe(1);
    expect((await l.api('DELETE', `/licenses/${g.license.id}`)).status).toBe(204);
    for (const { fingerprint } of components) {
      expect(await holders('COMPONENT', 'account', account.id, fingerprint)).toBe(0);
      expect(await holders('COMPONENT', 'license', g.license.id, fingerprint)).toBe(0);
    }
  });

  it('two activations of 20 components racing for one fingerprint under UNIQUE_PER_ACCOUNT: one is made whole, the other leaves nothing', async () => {
    const policy = { componentUniquenessStrategy: 'UNIQUE_PER_ACCOUNT' };
    const [first, second] = await Promise.all([l.graph({ policy }), l.graph({ policy })]);
    const contested = `contested-${randomUUID()}`;
    const parts = (tag: string) => [
      ...Array.from({ length: 19 }, (_, i) => ({ fingerprint: `${tag}-${i}-${randomUUID()}` })),
      { fingerprint: contested },
    ];
    const sets = [parts('first'), parts('second')];
    const hosts = [`host-${randomUUID()}`, `host-${randomUUID()}`];
    const graphs = [first!, second!];
    const replies = await Promise.all(graphs.map((g, i) => activate(g.license.id, hosts[i]!, sets[i])));
    expect(replies.map((r) => r.status).sort()).toEqual([201, 422]);
    const lost = replies.findIndex((r) => r.status === 422);
    expect(replies[lost]!.body.errors[0]).toMatchObject({
      code: 'FINGERPRINT_TAKEN',
      source: { pointer: '/data/relationships/components/data/19/attributes/fingerprint' },
    });
    const won = 1 - lost;
    const listed = await l.api('GET', `/machines/${replies[won]!.body.data.id}/components?page[size]=100`);
    expect(listed.body.links.meta.count).toBe(20);
    expect(await holders('COMPONENT', 'account', account.id, contested)).toBe(1);
    await expectNothingMade(
      graphs[lost]!,
      hosts[lost]!,
      sets[lost]!.filter((c) => c.fingerprint !== contested).map((c) => c.fingerprint),
    );
  });
});

/** Neither the machine nor any of the components were made: nothing listed, nothing counted, the fingerprints free. */
async function expectNothingMade(g: Graph, host: string, fingerprints: string[]) {
  const machines = await l.api('GET', `/licenses/${g.license.id}/machines`);
  expect(machines.body.data.map((m: any) => m.attributes.fingerprint)).not.toContain(host);
  expect((await l.api('GET', `/components?license=${g.license.id}`)).body.links.meta.count).toBe(0);
  for (const fingerprint of fingerprints) expect(await holders('COMPONENT', 'account', account.id, fingerprint)).toBe(0);
  expect(await holders('MACHINE', 'account', account.id, host)).toBe(0);
}

describe('events of an activation with components', () => {
  let receiver: Receiver;
  let e: ReturnType<typeof licensing>;
  beforeAll(async () => {
    ({ l: e, receiver } = await listeningAccount());
  });
  afterAll(() => receiver.close());

  it('machine.created, and component.created for each component as its own create would emit; a refused activation emits nothing', async () => {
    const g = await e.graph();
    const list = async () => {
      const reply = await e.api('GET', '/webhook-events?events[]=machine.created&events[]=component.created&page[size]=100');
      return reply.body.data.map((event: any) => ({ event: event.attributes.event, data: JSON.parse(event.attributes.payload).data }));
    };
    const before = (await list()).length;
    const components = Array.from({ length: 12 }, (_, i) => ({
      type: 'components',
      attributes: { fingerprint: `ev-${i}-${randomUUID()}`, name: `Part ${i}` },
    }));
    const made = await e.api('POST', '/machines', {
      body: doc(
        'machines',
        { fingerprint: `host-${randomUUID()}` },
        { license: ref('licenses', g.license.id), components: { data: components } },
      ),
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const emitted = (await list()).filter(
      (x: any) => x.data.id === made.body.data.id || x.data.relationships.machine?.data?.id === made.body.data.id,
    );
    expect(emitted.filter((x: any) => x.event === 'machine.created')).toEqual([{ event: 'machine.created', data: made.body.data }]);
    const created = emitted.filter((x: any) => x.event === 'component.created').map((x: any) => x.data);
    expect(created.map((c: any) => c.attributes.fingerprint).sort()).toEqual(components.map((c) => c.attributes.fingerprint).sort());
    const listed = await e.api('GET', `/machines/${made.body.data.id}/components?page[size]=100`);
    expect([...created].sort((a, b) => a.id.localeCompare(b.id))).toEqual([...listed.body.data].sort((a, b) => a.id.localeCompare(b.id)));

    const count = (await list()).length;
    expect(count).toBe(before + 13);
    const duplicate = components.slice(0, 2).map((c) => ({ ...c, attributes: { ...c.attributes, fingerprint: `dup-${randomUUID()}` } }));
    duplicate[1]!.attributes.fingerprint = duplicate[0]!.attributes.fingerprint;
    const refused = await e.api('POST', '/machines', {
      body: doc(
        'machines',
        { fingerprint: `host-${randomUUID()}` },
        { license: ref('licenses', g.license.id), components: { data: duplicate } },
      ),
    });
    expectCode(refused, 422, 'FINGERPRINT_TAKEN');
    expect((await list()).length).toBe(count);
  });
});
