/** Products: create, retrieve, update, delete (with everything under them), list, tokens. */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount, newUser, type TestAccount } from '../support/client.ts';
import { doc, expectCode, ids, licensing } from '../support/licensing.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
});

describe.concurrent('products', () => {
  it('creates (201), retrieves, updates and deletes (204, then 404)', async () => {
    const created = await l.api('POST', '/products', {
      body: doc('products', { name: 'Editor', url: 'https://editor.example', metadata: { tier: 1 } }),
    });
    expect(created.status).toBe(201);
    const p = created.body.data;
    expect(p).toMatchObject({ type: 'products', attributes: { name: 'Editor', url: 'https://editor.example', metadata: { tier: 1 } } });
    expect(p.links.self).toBe(`${account.path}/products/${p.id}`);
    expect((await l.api('GET', `/products/${p.id}`)).body.data).toEqual(p);
    const updated = await l.api('PATCH', `/products/${p.id}`, {
      body: doc('products', { name: 'Editor Pro', url: null, metadata: { tier: 2 } }),
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toMatchObject({ name: 'Editor Pro', url: null, metadata: { tier: 2 } });
    expect((await l.api('DELETE', `/products/${p.id}`)).status).toBe(204);
    expectCode(await l.api('GET', `/products/${p.id}`), 404, 'NOT_FOUND');
  });

  it('rules: name required (400), blank (400), too long (422), unknown attribute (400)', async () => {
    expect(expectCode(await l.api('POST', '/products', { body: doc('products', {}) }), 400).source).toEqual({
      pointer: '/data/attributes/name',
    });
    expectCode(await l.api('POST', '/products', { body: doc('products', { name: ' ' }) }), 400);
    expectCode(await l.api('POST', '/products', { body: doc('products', { name: 'n'.repeat(256) }) }), 422, 'NAME_TOO_LONG');
    expect(expectCode(await l.api('POST', '/products', { body: doc('products', { name: 'x', color: 'red' }) }), 400).detail).toBe(
      'unpermitted parameter',
    );
  });

  it("lists newest first with pages; a product bearer sees only itself, a user only their licenses' products", async () => {
    // An account of its own: the other tests of this file create products side by side.
    const account = await newAccount();
    const l = licensing(account);
    const [a, b] = [await l.product(), await l.product()];
    const all = await l.api('GET', '/products?page[size]=1');
    expect(ids(all)).toEqual([b.id]);
    expect(all.body.links.meta.count).toBe(2);
    const token = await l.productToken(a.id);
    expect(ids(await l.api('GET', '/products', { token }))).toEqual([a.id]);
    const user = await newUser(account);
    await l.license((await l.policy(b.id)).id, {}, { owner: user.id });
    expect(ids(await l.api('GET', '/products', { token: user.token }))).toEqual([b.id]);
    expect(ids(await l.api('GET', `/users/${user.id}/products`))).toEqual([b.id]);
    expect(ids(await l.api('GET', `/users/${user.id}/products`, { token: user.token }))).toEqual([b.id]);
    expect((await l.api('GET', `/products/${b.id}`, { token: user.token })).status).toBe(200);
    expectCode(await l.api('GET', `/products/${a.id}`, { token: user.token }), 404, 'NOT_FOUND');
  });

  it('product tokens: 200 with a prod- value; the bearer reads and updates itself, not others; may not create or delete products', async () => {
    const [p, q] = await Promise.all([l.product(), l.product()]);
    const reply = await l.api('POST', `/products/${p.id}/tokens`, { body: { data: { type: 'tokens', attributes: { name: 'ci' } } } });
    expect(reply.status).toBe(200);
    expect(reply.body.data.attributes).toMatchObject({ kind: 'product-token', name: 'ci', permissions: ['*'] });
    expect(reply.body.data.relationships.bearer.data).toEqual({ type: 'products', id: p.id });
    const token = reply.body.data.attributes.token as string;
    expect(token).toMatch(/^prod-[0-9a-f]{64}$/);
    expect((await l.api('GET', `/products/${p.id}`, { token })).status).toBe(200);
    expect((await l.api('PATCH', `/products/${p.id}`, { token, body: doc('products', { name: 'Self-named' }) })).status).toBe(200);
    expectCode(await l.api('GET', `/products/${q.id}`, { token }), 404, 'NOT_FOUND');
    expectCode(await l.api('DELETE', `/products/${p.id}`, { token }), 403);
    expectCode(await l.api('POST', '/products', { token, body: doc('products', { name: 'x' }) }), 403);
    expectCode(await l.api('POST', `/products/${p.id}/tokens`, { token }), 403);
    const user = await newUser(account);
    expectCode(await l.api('POST', '/products', { token: user.token, body: doc('products', { name: 'x' }) }), 403);
  });

  it('deleting a product removes its policies, licenses, machines, components and tokens', async () => {
    const g = await l.graph();
    const c = await l.component(g.machine.id);
    const [productToken, licenseToken] = await Promise.all([l.productToken(g.product.id), l.licenseToken(g.license.id)]);
    expect((await l.api('DELETE', `/products/${g.product.id}`)).status).toBe(204);
    for (const path of [`/policies/${g.policy.id}`, `/licenses/${g.license.id}`, `/machines/${g.machine.id}`, `/components/${c.id}`]) {
      expectCode(await l.api('GET', path), 404, 'NOT_FOUND');
    }
    for (const token of [productToken, licenseToken]) expectCode(await l.api('GET', '/tokens', { token }), 401, 'TOKEN_INVALID');
    expectCode(await l.api('GET', '/tokens', { authorization: `License ${g.license.attributes.key}` }), 401, 'LICENSE_INVALID');
    // The key is free again.
    const again = await l.license((await l.policy((await l.product()).id)).id, { key: g.license.attributes.key });
    expect(again.attributes.key).toBe(g.license.attributes.key);
  });

  it('every emitted link resolves', async () => {
    const p = await l.product();
    for (const link of [p.links.self, p.relationships.account.links.related]) {
      expect((await call('GET', link, { token: account.adminToken })).status, link).toBe(200);
    }
    expect(p.relationships.environment).toEqual({ data: null });
    expectCode(await l.api('GET', `/products/${randomUUID()}`), 404, 'NOT_FOUND');
  });
});
