/**
 * Fingerprint uniqueness by the policy's componentUniquenessStrategy (docs/rules.md §23.2): held by a
 * marker on the machine and by counts of its holders in the license, policy, product and account,
 * written in the same transaction as the component, so it holds under concurrent creates, and
 * released with the component, its machine, license, policy, product or environment. Strategies
 * judged against records made under other strategies: test/http/uniqueness-strategies.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { fingerprintValue } from '#shared/licensing/fingerprints.ts';
import { COMPONENT_FINGERPRINT_MARKER } from '#shared/resources/components/entity.ts';
import { fingerprintCountKey, uniqueKey } from '#shared/store/keys.ts';
import { getItem } from '#shared/store/records.ts';
import { call, newAccount, type TestAccount } from '../support/client.ts';
import { doc, expectCode, licensing, ref } from '../support/licensing.ts';
import { until } from '../support/patience.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
});

const add = (machineId: string, fingerprint: string, options: { environment?: string } = {}) =>
  l.api('POST', '/components', {
    ...options,
    body: doc('components', { fingerprint, name: 'part' }, { machine: ref('machines', machineId) }),
  });

/** The marker that holds a fingerprint on a machine, read straight from the table. */
const marker = (machineId: string, fingerprint: string) =>
  getItem(uniqueKey(account.id, COMPONENT_FINGERPRINT_MARKER, fingerprintValue('machine', machineId, fingerprint)));

/** The count of a fingerprint's holders in a wider scope (license, policy, product, account), as stored; undefined when none is. */
const count = (level: 'license' | 'policy' | 'product' | 'account', scopeId: string, fingerprint: string) =>
  getItem(fingerprintCountKey(account.id, 'COMPONENT', fingerprintValue(level, scopeId, fingerprint)));

/** Where a second component with the same fingerprint is refused, by strategy. */
const TAKEN: Record<string, string[]> = {
  UNIQUE_PER_MACHINE: ['sameMachine'],
  UNIQUE_PER_LICENSE: ['sameMachine', 'sameLicense'],
  UNIQUE_PER_POLICY: ['sameMachine', 'sameLicense', 'samePolicy'],
  UNIQUE_PER_PRODUCT: ['sameMachine', 'sameLicense', 'samePolicy', 'sameProduct'],
  UNIQUE_PER_ACCOUNT: ['sameMachine', 'sameLicense', 'samePolicy', 'sameProduct', 'otherProduct'],
};

describe.concurrent('sequential creates, each strategy', () => {
  for (const strategy of Object.keys(TAKEN)) {
    it(`${strategy}: refused exactly within its scope (422 FINGERPRINT_TAKEN), accepted outside it`, async () => {
      const policy = { componentUniquenessStrategy: strategy };
      const first = await l.graph({ policy });
      const sameLicense = await l.machine(first.license.id);
      const samePolicy = await l.machine((await l.license(first.policy.id)).id);
      const sameProduct = await l.machine((await l.license((await l.policy(first.product.id, policy)).id)).id);
      const otherProduct = (await l.graph({ policy })).machine;
      const fingerprint = `fp-${strategy}-${randomUUID()}`;
      expect((await add(first.machine.id, fingerprint)).status).toBe(201);
      const targets: Record<string, string> = {
        sameMachine: first.machine.id,
        sameLicense: sameLicense.id,
        samePolicy: samePolicy.id,
        sameProduct: sameProduct.id,
        otherProduct: otherProduct.id,
      };
      // Most distant first, so an accepted create never shadows a nearer one.
      for (const where of ['otherProduct', 'sameProduct', 'samePolicy', 'sameLicense', 'sameMachine']) {
        const reply = await add(targets[where]!, fingerprint);
        if (TAKEN[strategy]!.includes(where)) {
          const error = expectCode(reply, 422, 'FINGERPRINT_TAKEN');
          expect(error.source).toEqual({ pointer: '/data/attributes/fingerprint' });
        } else {
          expect(reply.status, `${strategy} ${where}: ${JSON.stringify(reply.body)}`).toBe(201);
        }
      }
    });
  }

  it('the strategy at creation decides only what the create is judged by; every holder is counted in every scope', async () => {
    const g = await l.graph({ policy: { componentUniquenessStrategy: 'UNIQUE_PER_LICENSE' } });
    const fingerprint = `switch-${randomUUID()}`;
    const c = await l.component(g.machine.id, fingerprint);
    expect((await marker(g.machine.id, fingerprint))?.ref).toContain(c.id);
    expect(await count('license', g.license.id, fingerprint)).toMatchObject({ n: 1 });
    const patched = await l.api('PATCH', `/policies/${g.policy.id}`, {
      body: doc('policies', { componentUniquenessStrategy: 'UNIQUE_PER_MACHINE' }),
    });
    expect(patched.status).toBe(200);
    const other = await l.machine(g.license.id);
    // Judged on its machine only, where the fingerprint is free.
    expect((await add(other.id, fingerprint)).status).toBe(201);
    expect(await marker(other.id, fingerprint)).toBeDefined();
    for (const [level, id] of [
      ['license', g.license.id],
      ['policy', g.policy.id],
      ['product', g.product.id],
      ['account', account.id],
    ] as const) {
      expect(await count(level, id, fingerprint), level).toMatchObject({ n: 2 });
    }
    expect((await l.api('DELETE', `/components/${c.id}`)).status).toBe(204);
    expect(await marker(g.machine.id, fingerprint)).toBeUndefined();
    expect(await count('license', g.license.id, fingerprint)).toMatchObject({ n: 1 });
    // The license is judged again by its strategy, and the component left holds the fingerprint there.
    await l.api('PATCH', `/policies/${g.policy.id}`, { body: doc('policies', { componentUniquenessStrategy: 'UNIQUE_PER_LICENSE' }) });
    expectCode(await add(g.machine.id, fingerprint), 422, 'FINGERPRINT_TAKEN');
  });

  it('an unknown strategy is 422 COMPONENT_UNIQUENESS_STRATEGY_NOT_ALLOWED', async () => {
    const p = await l.product();
    const reply = await l.api('POST', '/policies', {
      body: doc('policies', { name: 'x', componentUniquenessStrategy: 'UNIQUE_PER_GALAXY' }, { product: ref('products', p.id) }),
    });
    expect(expectCode(reply, 422, 'COMPONENT_UNIQUENESS_STRATEGY_NOT_ALLOWED').source).toEqual({
      pointer: '/data/attributes/componentUniquenessStrategy',
    });
  });
});

describe.concurrent('20 concurrent creates', () => {
  it('UNIQUE_PER_MACHINE, one machine: exactly one wins, no marker left by the losers', async () => {
    const g = await l.graph();
    const fingerprint = `race-${randomUUID()}`;
    const replies = await Promise.all(Array.from({ length: 20 }, () => add(g.machine.id, fingerprint)));
    const winners = replies.filter((r) => r.status === 201);
    expect(winners).toHaveLength(1);
    expect(replies.filter((r) => r.status === 422 && r.body.errors[0].code === 'FINGERPRINT_TAKEN')).toHaveLength(19);
    const listed = await l.api('GET', `/components?machine=${g.machine.id}`);
    expect(listed.body.links.meta.count).toBe(1);
    const held = await marker(g.machine.id, fingerprint);
    expect(held?.ref).toContain(winners[0]!.body.data.id);
    expect(await count('account', account.id, fingerprint)).toMatchObject({ n: 1 });
    expect((await l.api('DELETE', `/components/${winners[0]!.body.data.id}`)).status).toBe(204);
    expect(await marker(g.machine.id, fingerprint)).toBeUndefined();
    expect(await count('account', account.id, fingerprint)).toBeUndefined();
    expect((await add(g.machine.id, fingerprint)).status).toBe(201);
  });

  for (const strategy of ['UNIQUE_PER_LICENSE', 'UNIQUE_PER_POLICY', 'UNIQUE_PER_PRODUCT']) {
    it(`${strategy}: 20 creates spread over machines within the scope, exactly one wins`, async () => {
      const policy = { componentUniquenessStrategy: strategy };
      const g = await l.graph({ policy });
      const license =
        strategy === 'UNIQUE_PER_LICENSE'
          ? g.license
          : strategy === 'UNIQUE_PER_POLICY'
            ? await l.license(g.policy.id)
            : await l.license((await l.policy(g.product.id, policy)).id);
      const machines = [g.machine.id, ...(await Promise.all([1, 2, 3].map(() => l.machine(license.id)))).map((m) => m.id)];
      const fingerprint = `race-${strategy}-${randomUUID()}`;
      const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => add(machines[i % machines.length]!, fingerprint)));
      expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
      expect(replies.filter((r) => r.status === 422 && r.body.errors[0].code === 'FINGERPRINT_TAKEN')).toHaveLength(19);
      const counts = await Promise.all(machines.map((id) => l.api('GET', `/machines/${id}/components`)));
      expect(counts.reduce((sum, r) => sum + r.body.links.meta.count, 0)).toBe(1);
    });
  }

  it('UNIQUE_PER_ACCOUNT, 20 machines of different products: exactly one wins', async () => {
    const policy = { componentUniquenessStrategy: 'UNIQUE_PER_ACCOUNT' };
    const graphs = await Promise.all(Array.from({ length: 4 }, () => l.graph({ policy })));
    const machines = (await Promise.all(graphs.flatMap((g) => Array.from({ length: 5 }, () => l.machine(g.license.id))))).map((m) => m.id);
    const fingerprint = `race-account-${randomUUID()}`;
    const replies = await Promise.all(machines.map((id) => add(id, fingerprint)));
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 422 && r.body.errors[0].code === 'FINGERPRINT_TAKEN')).toHaveLength(19);
    const total = await Promise.all(machines.map((id) => l.api('GET', `/machines/${id}/components`)));
    expect(total.reduce((sum, r) => sum + r.body.links.meta.count, 0)).toBe(1);
  });
});

describe.concurrent('released with what it hangs on', () => {
  const setup = async () => {
    const g = await l.graph({ policy: { componentUniquenessStrategy: 'UNIQUE_PER_ACCOUNT' } });
    const fingerprint = `release-${randomUUID()}`;
    await l.component(g.machine.id, fingerprint);
    const elsewhere = (await l.graph({ policy: { componentUniquenessStrategy: 'UNIQUE_PER_ACCOUNT' } })).machine.id;
    expectCode(await add(elsewhere, fingerprint), 422, 'FINGERPRINT_TAKEN');
    return { g, fingerprint, elsewhere };
  };
  for (const [what, path] of [
    ['machine', (g: any) => `/machines/${g.machine.id}`],
    ['license', (g: any) => `/licenses/${g.license.id}`],
    ['policy', (g: any) => `/policies/${g.policy.id}`],
    ['product', (g: any) => `/products/${g.product.id}`],
  ] as const) {
    it(`removing the ${what} releases the fingerprint`, async () => {
      const { g, fingerprint, elsewhere } = await setup();
      expect((await l.api('DELETE', path(g))).status).toBe(204);
      expect(await count('account', account.id, fingerprint)).toBeUndefined();
      expect((await add(elsewhere, fingerprint)).status).toBe(201);
    });
  }

  it('removing the environment releases the fingerprints of its components (purge)', async () => {
    const code = `uniq-${randomUUID().slice(0, 8)}`;
    expect(
      (
        await call('POST', `${account.path}/environments`, {
          token: account.adminToken,
          body: { data: { type: 'environments', attributes: { name: code, code } } },
        })
      ).status,
    ).toBe(201);
    const policy = { componentUniquenessStrategy: 'UNIQUE_PER_ACCOUNT' };
    const inside = await l.graph({ environment: code, policy });
    const fingerprint = `env-${randomUUID()}`;
    await l.component(inside.machine.id, fingerprint, { environment: code });
    const outside = (await l.graph({ policy })).machine.id;
    expectCode(await add(outside, fingerprint), 422, 'FINGERPRINT_TAKEN');
    expect((await call('DELETE', `${account.path}/environments/${code}`, { token: account.adminToken })).status).toBe(204);
    await until(
      async () => !(await count('account', account.id, fingerprint)),
      () => `the purge to give back ${fingerprint}`,
    );
    expect((await add(outside, fingerprint)).status).toBe(201);
  });
});
