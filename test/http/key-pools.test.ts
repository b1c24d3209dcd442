/**
 * Key pools (docs/rules.md §18.9): a policy's `usePool`, its keys (`/keys`), licenses that take
 * their keys from the pool (each key once, even to concurrent creates), the pool's list and pop,
 * who may, and what a pool refuses.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newUser, type TestAccount } from '../support/client.ts';
import { doc, eventPayloads, expectCode, ids, type licensing, listeningAccount, ref } from '../support/licensing.ts';
import type { Receiver } from '../support/receiver.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
let receiver: Receiver;

beforeAll(async () => {
  ({ account, l, receiver } = await listeningAccount());
});

afterAll(() => receiver.close());

const newKey = () => `POOL-${randomUUID()}`;
const addKey = (policyId: string, key: string, options: { token?: string } = {}) =>
  l.api('POST', '/keys', { ...options, body: doc('keys', { key }, { policy: ref('policies', policyId) }) });
const createLicense = (policyId: string, attributes: Record<string, unknown> = {}) =>
  l.api('POST', '/licenses', { body: doc('licenses', attributes, { policy: ref('policies', policyId) }) });

/** A pooled policy with `n` keys, and the keys. */
async function pooled(n: number) {
  const product = await l.product();
  const policy = await l.policy(product.id, { usePool: true });
  const keys = Array.from({ length: n }, newKey);
  for (const key of keys) expect((await addKey(policy.id, key)).status).toBe(201);
  return { product, policy, keys };
}

describe.concurrent("a policy's pool", () => {
  it('is off by default; set at creation only, never with a key scheme', async () => {
    const product = await l.product();
    expect((await l.policy(product.id)).attributes.usePool).toBe(false);
    const policy = await l.policy(product.id, { usePool: true });
    expect(policy.attributes.usePool).toBe(true);
    expect(policy.relationships.pool.links.related).toBe(`${policy.links.self}/pool`);
    const signed = await l.api('POST', '/policies', {
      body: doc('policies', { name: 'Signed', usePool: true, scheme: 'ED25519_SIGN' }, { product: ref('products', product.id) }),
    });
    expect(expectCode(signed, 422, 'USE_POOL_NOT_SUPPORTED').source.pointer).toBe('/data/attributes/usePool');
    expectCode(await l.api('PATCH', `/policies/${policy.id}`, { body: doc('policies', { usePool: false }) }), 400);
  });

  it('takes keys 8 characters to 1 KB, each once among the pools, none a license holds; only into a pooled policy', async () => {
    const { product, policy, keys } = await pooled(1);
    const unpooled = await l.policy(product.id);
    expect(expectCode(await addKey(unpooled.id, newKey()), 422, 'POLICY_NOT_SUPPORTED').source.pointer).toBe('/data/relationships/policy');
    expectCode(await addKey(policy.id, 'short'), 422, 'KEY_TOO_SHORT');
    expectCode(await addKey(policy.id, 'k'.repeat(1025)), 422, 'KEY_TOO_LONG');
    expectCode(await addKey(policy.id, keys[0] as string), 422, 'KEY_TAKEN');
    const other = await pooled(0);
    expectCode(await addKey(other.policy.id, keys[0] as string), 422, 'KEY_TAKEN');
    const license = await l.license(unpooled.id);
    expectCode(await addKey(policy.id, license.attributes.key), 422, 'KEY_CONFLICT');
    // A key given by hand to a license is never one a pool holds.
    expectCode(await createLicense(unpooled.id, { key: keys[0] }), 422, 'KEY_CONFLICT');
    expectCode(await addKey(randomUUID(), newKey()), 422, 'POLICY_NOT_FOUND');
  });

  it('lists, reads, changes and deletes its keys; /policies/<id>/pool and ?policy= list the pool', async () => {
    const { product, policy, keys } = await pooled(2);
    const listed = await l.api('GET', `/keys?policy=${policy.id}`);
    expect(listed.body.data.map((key: { attributes: { key: string } }) => key.attributes.key).sort()).toEqual([...keys].sort());
    const [first] = listed.body.data;
    expect(first).toMatchObject({
      type: 'keys',
      relationships: { policy: { data: { id: policy.id } }, product: { data: { id: product.id } } },
    });
    expect(ids(await l.api('GET', `/policies/${policy.id}/pool`)).sort()).toEqual(ids(listed).sort());
    expect(ids(await l.api('GET', `/keys?product=${product.id}`))).toHaveLength(2);
    const renamed = newKey();
    const changed = await l.api('PATCH', `/keys/${first.id}`, { body: doc('keys', { key: renamed }) });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.data.attributes.key).toBe(renamed);
    // Its old value is free again; the new one is taken.
    expect((await addKey(policy.id, first.attributes.key)).status).toBe(201);
    expectCode(await addKey(policy.id, renamed), 422, 'KEY_TAKEN');
    expect((await l.api('DELETE', `/keys/${first.id}`)).status).toBe(204);
    expectCode(await l.api('GET', `/keys/${first.id}`), 404, 'NOT_FOUND');
    expect((await addKey(policy.id, renamed)).status).toBe(201);
    expect((await eventPayloads(account, 'key.updated', first.id)).length).toBe(1);
  });
});

describe.concurrent('licenses under a pooled policy', () => {
  it('take a key from the pool, which leaves it; an empty pool is 422 POLICY_POOL_EMPTY; a key given by hand takes none', async () => {
    const { policy, keys } = await pooled(2);
    const taken = new Set<string>();
    for (let i = 0; i < 2; i++) {
      const reply = await createLicense(policy.id);
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      taken.add(reply.body.data.attributes.key);
    }
    expect([...taken].sort()).toEqual([...keys].sort());
    expect(ids(await l.api('GET', `/policies/${policy.id}/pool`))).toEqual([]);
    const empty = expectCode(await createLicense(policy.id), 422, 'POLICY_POOL_EMPTY');
    expect(empty.source.pointer).toBe('/data/relationships/policy');
    const given = await createLicense(policy.id, { key: newKey() });
    expect(given.status, JSON.stringify(given.body)).toBe(201);
    // The license validates by the key it took.
    const validated = await call('POST', `${account.path}/licenses/actions/validate-key`, { body: { meta: { key: keys[0] } } });
    expect(validated.body.meta.code).toBe('VALID');
  });

  it('each key is taken once: 20 concurrent creates on a pool of 5 make 5 licenses with 5 distinct keys', async () => {
    const { policy, keys } = await pooled(5);
    const replies = await Promise.all(Array.from({ length: 20 }, () => createLicense(policy.id)));
    const made = replies.filter((reply) => reply.status === 201);
    expect(made, JSON.stringify(replies.map((reply) => [reply.status, reply.body?.errors?.[0]?.code]))).toHaveLength(5);
    for (const reply of replies.filter((r) => r.status !== 201)) expectCode(reply, 422, 'POLICY_POOL_EMPTY');
    expect(made.map((reply) => reply.body.data.attributes.key).sort()).toEqual([...keys].sort());
    const licenses = await l.api('GET', `/licenses?policy=${policy.id}`);
    expect(licenses.body.data).toHaveLength(5);
  });
});

describe.concurrent('popping the pool: DELETE /policies/<id>/pool', () => {
  it('answers a key taken out of the pool with its event; 422 when the policy has no pool or it is empty', async () => {
    const { product, policy, keys } = await pooled(1);
    const popped = await l.api('DELETE', `/policies/${policy.id}/pool`);
    expect(popped.status, JSON.stringify(popped.body)).toBe(200);
    expect(popped.body.data).toMatchObject({ type: 'keys', attributes: { key: keys[0] } });
    expectCode(await l.api('GET', `/keys/${popped.body.data.id}`), 404);
    expect(await eventPayloads(account, 'policy.pool.popped', popped.body.data.id)).toHaveLength(1);
    const empty = expectCode(await l.api('DELETE', `/policies/${policy.id}/pool`), 422, 'POLICY_POOL_EMPTY');
    expect(empty.source.pointer).toBe('/data/relationships/pool');
    const unpooled = await l.policy(product.id);
    expectCode(await l.api('DELETE', `/policies/${unpooled.id}/pool`), 422, 'POLICY_POOL_NOT_SUPPORTED');
  });

  it('ten concurrent pops of a pool of three: three keys, each once', async () => {
    const { policy, keys } = await pooled(3);
    const replies = await Promise.all(Array.from({ length: 10 }, () => l.api('DELETE', `/policies/${policy.id}/pool`)));
    const popped = replies.filter((reply) => reply.status === 200).map((reply) => reply.body.data.attributes.key);
    expect(popped.sort()).toEqual([...keys].sort());
    for (const reply of replies.filter((r) => r.status !== 200)) expectCode(reply, 422, 'POLICY_POOL_EMPTY');
  });
});

describe.concurrent('who may', () => {
  it("administrators and the policy's product; another product does not see them; licensees are refused", async () => {
    const { product, policy } = await pooled(1);
    const productToken = await l.productToken(product.id);
    const made = await addKey(policy.id, newKey(), { token: productToken });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const otherProduct = await l.productToken((await l.product()).id);
    expectCode(await l.api('GET', `/keys/${made.body.data.id}`, { token: otherProduct }), 404);
    expect(ids(await l.api('GET', '/keys', { token: otherProduct }))).toEqual([]);
    expectCode(await addKey(policy.id, newKey(), { token: otherProduct }), 422, 'POLICY_NOT_FOUND');
    const user = await newUser(account);
    expectCode(await l.api('GET', '/keys', { token: user.token }), 403);
    const license = await l.license((await l.policy(product.id)).id);
    const licenseToken = await l.licenseToken(license.id);
    expectCode(await l.api('GET', `/keys/${made.body.data.id}`, { token: licenseToken }), 404);
    expectCode(await l.api('GET', '/keys', { token: licenseToken }), 403);
    expectCode(await l.api('DELETE', `/policies/${policy.id}/pool`, { token: licenseToken }), 404);
  });

  it("a policy's removal takes its pool along", async () => {
    const { policy } = await pooled(1);
    const [key] = ids(await l.api('GET', `/policies/${policy.id}/pool`));
    expect((await l.api('DELETE', `/policies/${policy.id}`)).status).toBe(204);
    expectCode(await l.api('GET', `/keys/${key}`), 404);
  });
});
