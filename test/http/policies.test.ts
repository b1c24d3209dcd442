/** Policies: create under a product, retrieve, update, delete (with licenses below), list with the product filter. */
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

describe.concurrent('policies', () => {
  it('creates with defaults, retrieves, updates, deletes', async () => {
    const p = await l.product();
    const created = await l.api('POST', '/policies', { body: doc('policies', { name: 'Basic' }, { product: ref('products', p.id) }) });
    expect(created.status).toBe(201);
    const pol = created.body.data;
    expect(pol.attributes).toMatchObject({
      name: 'Basic',
      componentUniquenessStrategy: 'UNIQUE_PER_MACHINE',
      componentMatchingStrategy: 'MATCH_ANY',
      requireComponentsScope: false,
      protected: false,
      maxMachines: null,
      metadata: {},
    });
    expect(pol.relationships.product).toEqual({
      links: { related: `${account.path}/products/${p.id}` },
      data: { type: 'products', id: p.id },
    });
    expect((await l.api('GET', `/policies/${pol.id}`)).body.data).toEqual(pol);
    const attributes = {
      name: 'Strict',
      componentUniquenessStrategy: 'UNIQUE_PER_PRODUCT',
      componentMatchingStrategy: 'MATCH_ALL',
      requireComponentsScope: true,
      protected: true,
      maxMachines: 3,
      metadata: { x: 1 },
    };
    const updated = await l.api('PATCH', `/policies/${pol.id}`, { body: doc('policies', attributes) });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toMatchObject(attributes);
    expect((await l.api('DELETE', `/policies/${pol.id}`)).status).toBe(204);
    expectCode(await l.api('GET', `/policies/${pol.id}`), 404, 'NOT_FOUND');
    for (const link of [pol.relationships.product.links.related, pol.relationships.account.links.related]) {
      expect((await call('GET', link, { token: account.adminToken })).status).toBe(200);
    }
  });

  it('rules: unknown strategies → 422 <ATTRIBUTE>_NOT_ALLOWED; maxMachines < 1 → 422; product required and must exist', async () => {
    const p = await l.product();
    const post = (attributes: Record<string, unknown>, productId: string | null = p.id) =>
      l.api('POST', '/policies', {
        body: doc('policies', { name: 'x', ...attributes }, productId ? { product: ref('products', productId) } : undefined),
      });
    expectCode(await post({ componentMatchingStrategy: 'MATCH_SOME' }), 422, 'COMPONENT_MATCHING_STRATEGY_NOT_ALLOWED');
    expectCode(await post({ componentUniquenessStrategy: 'nope' }), 422, 'COMPONENT_UNIQUENESS_STRATEGY_NOT_ALLOWED');
    expectCode(await post({ maxMachines: 0 }), 422, 'MAX_MACHINES_INVALID');
    expectCode(await post({ maxMachines: 1.5 }), 400);
    expect(expectCode(await post({}, randomUUID()), 422, 'PRODUCT_NOT_FOUND').source).toEqual({ pointer: '/data/relationships/product' });
    expectCode(await post({}, null), 400);
    const pol = await l.policy(p.id);
    expectCode(
      await l.api('PATCH', `/policies/${pol.id}`, { body: doc('policies', { componentMatchingStrategy: 'MATCH_SOME' }) }),
      422,
      'COMPONENT_MATCHING_STRATEGY_NOT_ALLOWED',
    );
  });

  it('lists newest first, filtered by product; a product bearer sees and manages its own only; licensees are refused', async () => {
    const [p, q] = await Promise.all([l.product(), l.product()]);
    const a = await l.policy(p.id);
    const b = await l.policy(p.id);
    const c = await l.policy(q.id);
    const filtered = await l.api('GET', `/policies?product=${p.id}`);
    expect(ids(filtered)).toEqual([b.id, a.id]);
    expect(filtered.body.links.meta).toEqual({ pages: 1, count: 2 });
    expect(ids(await l.api('GET', '/policies?page[size]=100'))).toEqual(expect.arrayContaining([a.id, b.id, c.id]));
    const token = await l.productToken(p.id);
    expect(ids(await l.api('GET', '/policies?page[size]=100', { token }))).toEqual([b.id, a.id]);
    expect(ids(await l.api('GET', `/policies?product=${q.id}`, { token }))).toEqual([]);
    // The filter names a product by id: anything else is refused, not matched against nothing.
    const malformed = await l.api('GET', '/policies?product=nope');
    expect(expectCode(malformed, 400, 'PARAMETERS_INVALID').source).toEqual({ parameter: 'product' });
    expectCode(await l.api('GET', `/policies/${c.id}`, { token }), 404, 'NOT_FOUND');
    expect(
      (await l.api('POST', '/policies', { token, body: doc('policies', { name: 'mine' }, { product: ref('products', p.id) }) })).status,
    ).toBe(201);
    expectCode(
      await l.api('POST', '/policies', { token, body: doc('policies', { name: 'theirs' }, { product: ref('products', q.id) }) }),
      422,
      'PRODUCT_NOT_FOUND',
    );
    expect((await l.api('PATCH', `/policies/${a.id}`, { token, body: doc('policies', { name: 'renamed' }) })).status).toBe(200);
    expect((await l.api('DELETE', `/policies/${a.id}`, { token })).status).toBe(204);
    const user = await newUser(account);
    expectCode(await l.api('GET', '/policies', { token: user.token }), 403);
    expectCode(
      await l.api('POST', '/policies', { token: user.token, body: doc('policies', { name: 'x' }, { product: ref('products', p.id) }) }),
      403,
    );
  });

  it('a licensee reads the policy of its license only', async () => {
    const user = await newUser(account);
    const g = await l.graph({ owner: user.id });
    const other = await l.policy(g.product.id);
    const licenseToken = await l.licenseToken(g.license.id);
    for (const token of [user.token, licenseToken]) {
      expect((await l.api('GET', `/policies/${g.policy.id}`, { token })).status).toBe(200);
      expectCode(await l.api('GET', `/policies/${other.id}`, { token }), 404, 'NOT_FOUND');
      expectCode(await l.api('PATCH', `/policies/${g.policy.id}`, { token, body: doc('policies', { name: 'x' }) }), 403);
    }
  });

  it('deleting a policy removes its licenses, their machines and components', async () => {
    const g = await l.graph();
    const c = await l.component(g.machine.id);
    const sibling = await l.policy(g.product.id);
    expect((await l.api('DELETE', `/policies/${g.policy.id}`)).status).toBe(204);
    for (const path of [`/licenses/${g.license.id}`, `/machines/${g.machine.id}`, `/components/${c.id}`])
      expectCode(await l.api('GET', path), 404);
    expect((await l.api('GET', `/products/${g.product.id}`)).status).toBe(200);
    expect((await l.api('GET', `/policies/${sibling.id}`)).status).toBe(200);
    expect((await l.api('GET', `/licenses?product=${g.product.id}`)).body.links.meta.count).toBe(0);
  });
});
