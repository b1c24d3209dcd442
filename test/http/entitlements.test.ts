/**
 * Entitlements (docs/rules.md §25): the resource and its rules, who sees which, attaching them to
 * policies and licenses (all or nothing, one winner among concurrent attaches), what a license
 * holds, what removals take with them, and the entitlements scope of a validation.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entitlementHolderKey, entitlementHoldersPartition, entitlementSetKey } from '#shared/store/keys.ts';
import { partitionItems } from '#shared/store/paging.ts';
import { getItem } from '#shared/store/records.ts';
import { Transaction } from '#shared/store/transaction.ts';
import { call, environmentToken, expectError, newEnvironment, newUser, type Reply, type TestAccount } from '../support/client.ts';
import { checkConsistency } from '../support/consistency.ts';
import { doc, ids, type licensing, listeningAccount } from '../support/licensing.ts';
import { ofKind, type Receiver } from '../support/receiver.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
let receiver: Receiver;

beforeAll(async () => {
  ({ account, l, receiver } = await listeningAccount());
});

afterAll(() => receiver.close());

const unique = () => randomUUID().slice(0, 8);
type Options = { token?: string; environment?: string; authorization?: string };

/** Creates an entitlement (as the admin unless told otherwise); returns its document. */
async function entitlement(attributes: Record<string, unknown> = {}, options: Options = {}) {
  const code = `feature-${unique()}`;
  const reply = await l.api('POST', '/entitlements', {
    ...options,
    body: doc('entitlements', { name: `Feature ${code}`, code, ...attributes }),
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.data as { id: string; attributes: { code: string; name: string } };
}

/** `{data: [{type: "entitlements", id}, ...]}` */
const named = (...entitlementIds: string[]) => ({ data: entitlementIds.map((id) => ({ type: 'entitlements', id })) });

const attach = (holder: string, entitlementIds: string[], options: Options = {}) =>
  l.api('POST', `${holder}/entitlements`, { ...options, body: named(...entitlementIds) });
const detach = (holder: string, entitlementIds: string[], options: Options = {}) =>
  l.api('DELETE', `${holder}/entitlements`, { ...options, body: named(...entitlementIds) });

/** The ids a holder's entitlements list shows, sorted. */
async function listed(holder: string, options: Options = {}): Promise<string[]> {
  return ids(await l.api('GET', `${holder}/entitlements?page[size]=100`, options)).sort();
}

const sorted = (...values: string[]) => [...values].sort();

/** A product, a policy and a license under it, with their paths. */
async function holders(options: Options & { owner?: string } = {}) {
  const product = await l.product({}, options);
  const policy = await l.policy(product.id, {}, options);
  const license = await l.license(policy.id, {}, options);
  return { product, policy, license, policyPath: `/policies/${policy.id}`, licensePath: `/licenses/${license.id}` };
}

describe('the entitlement resource', () => {
  it('is created (201), read, listed, updated and deleted (204), with its events', async () => {
    const created = await l.api('POST', '/entitlements', {
      body: doc('entitlements', { name: 'Offline mode', code: 'OFFLINE_MODE', metadata: { tier: 2 } }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id } = created.body.data;
    expect(created.body.data).toEqual({
      id,
      type: 'entitlements',
      attributes: {
        name: 'Offline mode',
        code: 'OFFLINE_MODE',
        metadata: { tier: 2 },
        created: expect.any(String),
        updated: expect.any(String),
      },
      relationships: {
        account: { links: { related: account.path }, data: { type: 'accounts', id: account.id } },
        environment: { data: null },
      },
      links: { self: `${account.path}/entitlements/${id}` },
    });
    expect((await l.api('GET', `/entitlements/${id}`)).body.data).toEqual(created.body.data);
    expect(ids(await l.api('GET', '/entitlements?page[size]=100'))).toContain(id);

    const updated = await l.api('PATCH', `/entitlements/${id}`, {
      body: { data: { type: 'entitlements', id, attributes: { name: 'Offline', code: 'offline-mode', metadata: {} } } },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.data.attributes).toMatchObject({ name: 'Offline', code: 'offline-mode', metadata: {} });

    expect((await l.api('DELETE', `/entitlements/${id}`)).status).toBe(204);
    expectError(await l.api('GET', `/entitlements/${id}`), 404, { code: 'NOT_FOUND' });
    expectError(await l.api('DELETE', `/entitlements/${id}`), 404, { code: 'NOT_FOUND' });

    const deliveries = await receiver.waitFor((all) =>
      ['created', 'updated', 'deleted'].every((action) =>
        ofKind(all, `entitlement.${action}`).some((d) => JSON.parse(d.json.data.attributes.payload).data.id === id),
      ),
    );
    const deleted = ofKind(deliveries, 'entitlement.deleted').find((d) => JSON.parse(d.json.data.attributes.payload).data.id === id);
    expect(JSON.parse(deleted!.json.data.attributes.payload).data.attributes.code).toBe('offline-mode');
  });

  it('lists newest first, by page', async () => {
    const environment = await newEnvironment(account, 'ISOLATED');
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await entitlement({}, { environment: environment.code })).id);
    const first = await l.api('GET', '/entitlements?page[size]=2', { environment: environment.code });
    expect(ids(first)).toEqual([made[2], made[1]]);
    expect(first.body.links.meta).toEqual({ pages: 2, count: 3 });
    expect(ids(await l.api('GET', '/entitlements?page[size]=2&page[number]=2', { environment: environment.code }))).toEqual([made[0]]);
  });

  it('refuses a body of the wrong shape (400)', async () => {
    const post = (attributes: unknown) => l.api('POST', '/entitlements', { body: { data: { type: 'entitlements', attributes } } });
    expectError(await post({ name: 'No code' }), 400, { code: 'PARAMETER_INVALID', source: { pointer: '/data/attributes/code' } });
    expectError(await post({ code: 'no-name' }), 400, { code: 'PARAMETER_INVALID', source: { pointer: '/data/attributes/name' } });
    expectError(await post({ name: 'Blank', code: '  ' }), 400, {
      source: { pointer: '/data/attributes/code' },
      detail: 'cannot be blank',
    });
    expectError(await post({ name: 'Typed', code: 7 }), 400, { source: { pointer: '/data/attributes/code' } });
    expectError(await post({ name: 'Extra', code: `x-${unique()}`, key: 'v' }), 400, {
      source: { pointer: '/data/attributes/key' },
      detail: 'unpermitted parameter',
    });
    expectError(await l.api('POST', '/entitlements', { body: doc('products', { name: 'Wrong', code: 'type' }) }), 400, {
      source: { pointer: '/data/type' },
    });
  });

  it('breaks its rules with 422: lengths, UUID-shaped and reserved codes, metadata', async () => {
    const post = (attributes: Record<string, unknown>) =>
      l.api('POST', '/entitlements', { body: doc('entitlements', { name: 'Rules', code: `rules-${unique()}`, ...attributes }) });
    const at = (attribute: string) => ({ pointer: `/data/attributes/${attribute}` });
    expectError(await post({ name: 'n'.repeat(256) }), 422, { code: 'NAME_TOO_LONG', source: at('name') });
    expectError(await post({ code: 'c'.repeat(256) }), 422, { code: 'CODE_TOO_LONG', source: at('code') });
    expect((await post({ code: `${'c'.repeat(247)}${unique()}` })).status).toBe(201);
    expectError(await post({ code: randomUUID().toUpperCase() }), 422, { code: 'CODE_INVALID', source: at('code') });
    for (const code of ['action', 'actions', 'Actions']) {
      expectError(await post({ code }), 422, { code: 'CODE_NOT_ALLOWED', source: at('code') });
    }
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i]));
    expectError(await post({ metadata: many }), 422, { code: 'METADATA_TOO_LARGE', source: at('metadata') });
    const { id } = await entitlement();
    const patch = (attributes: Record<string, unknown>) =>
      l.api('PATCH', `/entitlements/${id}`, { body: { data: { type: 'entitlements', attributes } } });
    expectError(await patch({ code: randomUUID() }), 422, { code: 'CODE_INVALID', source: at('code') });
    expectError(await patch({ code: 'action' }), 422, { code: 'CODE_NOT_ALLOWED', source: at('code') });
    expectError(await patch({ name: 'n'.repeat(256) }), 422, { code: 'NAME_TOO_LONG', source: at('name') });
  });

  it('holds its code alone in the account, case-insensitively and across environments; a new code frees the old one', async () => {
    const code = `Unique-${unique()}`;
    const isolated = await newEnvironment(account, 'ISOLATED');
    const first = await entitlement({ code }, { environment: isolated.code });
    const taken = { code: 'CODE_TAKEN', source: { pointer: '/data/attributes/code' } };
    expectError(
      await l.api('POST', '/entitlements', { body: doc('entitlements', { name: 'Again', code: code.toUpperCase() }) }),
      422,
      taken,
    );
    const other = await entitlement();
    expectError(await l.api('PATCH', `/entitlements/${other.id}`, { body: doc('entitlements', { code: code.toLowerCase() }) }), 422, taken);
    // Its own code in another case is no conflict.
    const recased = await l.api('PATCH', `/entitlements/${first.id}`, {
      environment: isolated.code,
      body: doc('entitlements', { code: code.toLowerCase() }),
    });
    expect(recased.status, JSON.stringify(recased.body)).toBe(200);
    const renamed = await l.api('PATCH', `/entitlements/${first.id}`, {
      environment: isolated.code,
      body: doc('entitlements', { code: `${code}-2` }),
    });
    expect(renamed.status).toBe(200);
    expect((await entitlement({ code })).attributes.code).toBe(code);
  });

  it('lives in its environment: ISOLATED sees its own, SHARED also reads global ones but changes only its own', async () => {
    const isolated = await newEnvironment(account, 'ISOLATED');
    const shared = await newEnvironment(account, 'SHARED');
    const global = await entitlement();
    const inIsolated = await entitlement({}, { environment: isolated.code });
    const inShared = await entitlement({}, { environment: shared.code });
    expect(inIsolated).toMatchObject({ relationships: { environment: { data: { type: 'environments', id: isolated.id } } } });

    expect(await listed('', { environment: isolated.code })).toEqual([inIsolated.id]);
    expect(await listed('', { environment: shared.code })).toEqual(expect.arrayContaining([inShared.id, global.id]));
    expect(await listed('', { environment: shared.code })).not.toContain(inIsolated.id);
    expect(await listed('')).not.toContain(inShared.id);
    expectError(await l.api('GET', `/entitlements/${inIsolated.id}`), 404);
    expectError(await l.api('GET', `/entitlements/${inIsolated.id}`, { environment: shared.code }), 404);
    expect((await l.api('GET', `/entitlements/${global.id}`, { environment: shared.code })).status).toBe(200);
    const fromShared = await l.api('PATCH', `/entitlements/${global.id}`, {
      environment: shared.code,
      body: doc('entitlements', { name: 'No' }),
    });
    expectError(fromShared, 403);
    expectError(await l.api('DELETE', `/entitlements/${global.id}`, { environment: shared.code }), 403);
    const envToken = await environmentToken(account, shared.code);
    expect((await l.api('DELETE', `/entitlements/${inShared.id}`, { token: envToken, environment: shared.code })).status).toBe(204);
  });
});

describe('who sees which entitlements', () => {
  it('administrators and products see all; a license what it holds; a user what the licenses they own hold; nobody else changes them', async () => {
    const owner = await newUser(account);
    const stranger = await newUser(account);
    const { product, policy, license, policyPath, licensePath } = await holders();
    const owned = await l.license(policy.id, {}, { owner: owner.id });
    const [throughPolicy, own, ofOwned, elsewhere] = await Promise.all([entitlement(), entitlement(), entitlement(), entitlement()]);
    expect((await attach(policyPath, [throughPolicy.id])).status).toBe(200);
    expect((await attach(licensePath, [own.id])).status).toBe(200);
    expect((await attach(`/licenses/${owned.id}`, [ofOwned.id])).status).toBe(200);

    const productToken = await l.productToken(product.id);
    const licenseToken = await l.licenseToken(license.id);
    const licenseKey = { authorization: `License ${license.attributes.key}` };
    const all = ids(await l.api('GET', '/entitlements?page[size]=100', { token: productToken }));
    expect(all).toEqual(expect.arrayContaining([throughPolicy.id, own.id, ofOwned.id, elsewhere.id]));
    expect((await l.api('GET', `/entitlements/${elsewhere.id}`, { token: productToken })).status).toBe(200);

    for (const bearer of [{ token: licenseToken }, licenseKey]) {
      expect(await listed('', bearer)).toEqual(sorted(throughPolicy.id, own.id));
      expect((await l.api('GET', `/entitlements/${own.id}`, bearer)).status).toBe(200);
      expectError(await l.api('GET', `/entitlements/${ofOwned.id}`, bearer), 404);
      expect(await listed(licensePath, bearer)).toEqual(sorted(throughPolicy.id, own.id));
      expect(await listed(policyPath, bearer)).toEqual([throughPolicy.id]);
    }
    expect(await listed('', { token: owner.token })).toEqual(sorted(throughPolicy.id, ofOwned.id));
    expect((await l.api('GET', `/entitlements/${ofOwned.id}`, { token: owner.token })).status).toBe(200);
    expectError(await l.api('GET', `/entitlements/${own.id}`, { token: owner.token }), 404);
    expect(await listed('', { token: stranger.token })).toEqual([]);
    expectError(await l.api('GET', `/entitlements/${throughPolicy.id}`, { token: stranger.token }), 404);

    // Creating, changing and removing entitlements is for administrators only.
    for (const bearer of [{ token: productToken }, { token: licenseToken }, { token: owner.token }]) {
      expectError(
        await l.api('POST', '/entitlements', { ...bearer, body: doc('entitlements', { name: 'No', code: `no-${unique()}` }) }),
        403,
      );
    }
    expectError(await l.api('PATCH', `/entitlements/${own.id}`, { token: productToken, body: doc('entitlements', { name: 'No' }) }), 403);
    expectError(await l.api('PATCH', `/entitlements/${own.id}`, { token: licenseToken, body: doc('entitlements', { name: 'No' }) }), 403);
    expectError(await l.api('DELETE', `/entitlements/${ofOwned.id}`, { token: owner.token }), 403);
    expectError(await l.api('DELETE', `/entitlements/${own.id}`, { token: stranger.token }), 404);
  });

  it('shows policies and licenses an entitlements link', async () => {
    const { policy, license } = await holders();
    expect(policy.relationships.entitlements).toEqual({ links: { related: `${account.path}/policies/${policy.id}/entitlements` } });
    expect(license.relationships.entitlements).toEqual({ links: { related: `${account.path}/licenses/${license.id}/entitlements` } });
  });
});

describe('attaching and detaching', () => {
  it("attaches to a policy and a license (200, the attachments); a license's list is its policy's and its own", async () => {
    const { policy, license, policyPath, licensePath } = await holders();
    const [a, b, c] = await Promise.all([entitlement(), entitlement(), entitlement()]);
    const toPolicy = await attach(policyPath, [a.id, b.id]);
    expect(toPolicy.status, JSON.stringify(toPolicy.body)).toBe(200);
    expect(Object.keys(toPolicy.body)).toEqual(['data']);
    expect(toPolicy.body.data.map((x: { relationships: any }) => x.relationships.entitlement.data.id)).toEqual([a.id, b.id]);
    expect(toPolicy.body.data[0]).toEqual({
      id: expect.any(String),
      type: 'policy-entitlements',
      attributes: { created: expect.any(String), updated: expect.any(String) },
      relationships: {
        account: { links: { related: account.path }, data: { type: 'accounts', id: account.id } },
        environment: { data: null },
        entitlement: { links: { related: `${account.path}/entitlements/${a.id}` }, data: { type: 'entitlements', id: a.id } },
        policy: { links: { related: `${account.path}/policies/${policy.id}` }, data: { type: 'policies', id: policy.id } },
      },
      links: { related: `${account.path}/policies/${policy.id}/entitlements` },
    });
    const toLicense = await attach(licensePath, [c.id]);
    expect(toLicense.status).toBe(200);
    expect(toLicense.body.data[0]).toMatchObject({
      type: 'license-entitlements',
      relationships: { license: { data: { type: 'licenses', id: license.id } }, entitlement: { data: { id: c.id } } },
    });
    expect(await listed(policyPath)).toEqual(sorted(a.id, b.id));
    expect(await listed(licensePath)).toEqual(sorted(a.id, b.id, c.id));
    // A license is also named by its key, as Keygen's SDKs name it.
    const byKey = `/licenses/${encodeURIComponent(license.attributes.key)}`;
    expect(await listed(byKey)).toEqual(sorted(a.id, b.id, c.id));
    expectError(await attach(byKey, [c.id]), 422, { code: 'ENTITLEMENT_TAKEN' });
    const page = await l.api('GET', `${licensePath}/entitlements?page[size]=2`);
    expect(page.body.links.meta).toEqual({ pages: 2, count: 3 });
    expect(page.body.data[0].type).toBe('entitlements');

    // A second license of the policy holds the policy's entitlements, not the first license's own.
    const sibling = await l.license(policy.id);
    expect(await listed(`/licenses/${sibling.id}`)).toEqual(sorted(a.id, b.id));
  });

  it('refuses what cannot be attached with 422 at /data/<index>: not found, taken, conflict', async () => {
    const { policyPath, licensePath } = await holders();
    const isolated = await newEnvironment(account, 'ISOLATED');
    const [held, onPolicy, fresh] = await Promise.all([entitlement(), entitlement(), entitlement()]);
    const elsewhere = await entitlement({}, { environment: isolated.code });
    expect((await attach(policyPath, [onPolicy.id])).status).toBe(200);
    expect((await attach(licensePath, [held.id])).status).toBe(200);
    const at = (index: number) => ({ pointer: `/data/${index}` });
    for (const missing of [randomUUID(), 'not-a-uuid', elsewhere.id]) {
      expectError(await attach(licensePath, [fresh.id, missing]), 422, { code: 'ENTITLEMENT_NOT_FOUND', source: at(1) });
    }
    expectError(await attach(licensePath, [fresh.id, held.id]), 422, { code: 'ENTITLEMENT_TAKEN', source: at(1) });
    expectError(await attach(licensePath, [fresh.id, fresh.id]), 422, { code: 'ENTITLEMENT_TAKEN', source: at(1) });
    expectError(await attach(policyPath, [onPolicy.id]), 422, { code: 'ENTITLEMENT_TAKEN', source: at(0) });
    expectError(await attach(licensePath, [fresh.id, onPolicy.id]), 422, { code: 'ENTITLEMENT_CONFLICT', source: at(1) });
    // All or nothing: none of the refused requests attached `fresh`.
    expect(await listed(licensePath)).toEqual(sorted(held.id, onPolicy.id));
    expect((await attach(licensePath, [fresh.id.toUpperCase()])).status).toBe(200);
  });

  it('reads 1 to 100 entitlements of type entitlements (400 otherwise)', async () => {
    const { licensePath } = await holders();
    const body = (value: unknown) => l.api('POST', `${licensePath}/entitlements`, { body: value });
    expectError(await body({ data: [] }), 400, { code: 'PARAMETER_INVALID', source: { pointer: '/data' } });
    const many = Array.from({ length: 101 }, () => ({ type: 'entitlements', id: randomUUID() }));
    expectError(await body({ data: many }), 400, { code: 'PARAMETER_INVALID', source: { pointer: '/data' } });
    expectError(await body({ data: { type: 'entitlements', id: randomUUID() } }), 400, { source: { pointer: '/data' } });
    expectError(await body({ data: [{ type: 'products', id: randomUUID() }] }), 400, { source: { pointer: '/data/0/type' } });
    expectError(await body({ data: [{ type: 'entitlements' }] }), 400, { source: { pointer: '/data/0/id' } });
    expectError(await body({}), 400, { source: { pointer: '/data' } });
    expectError(await l.api('DELETE', `${licensePath}/entitlements`, { body: { data: [] } }), 400, { source: { pointer: '/data' } });
  });

  it('attaches 100 at once, all or nothing', async () => {
    const { licensePath } = await holders();
    const made = await Promise.all(Array.from({ length: 100 }, () => entitlement()));
    const refused = await attach(licensePath, [...made.slice(0, 99).map((e) => e.id), randomUUID()]);
    expectError(refused, 422, { code: 'ENTITLEMENT_NOT_FOUND', source: { pointer: '/data/99' } });
    expect(await listed(licensePath)).toEqual([]);
    const all = await attach(
      licensePath,
      made.map((e) => e.id),
    );
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body.data).toHaveLength(100);
    const page = await l.api('GET', `${licensePath}/entitlements?page[size]=100`);
    expect(page.body.links.meta.count).toBe(100);
    expect(
      (
        await detach(
          licensePath,
          made.map((e) => e.id),
        )
      ).status,
    ).toBe(204);
    expect(await listed(licensePath)).toEqual([]);
  });

  it('detaches (204); 403 for one held through the policy; 422 for one not attached; all or nothing', async () => {
    const { policyPath, licensePath } = await holders();
    const [onPolicy, own, other, notAttached] = await Promise.all([entitlement(), entitlement(), entitlement(), entitlement()]);
    expect((await attach(policyPath, [onPolicy.id])).status).toBe(200);
    expect((await attach(licensePath, [own.id, other.id])).status).toBe(200);

    const throughPolicy = expectError(await detach(licensePath, [own.id, onPolicy.id]), 403);
    expect(throughPolicy.detail).toMatch(/policy/);
    const at = (index: number) => ({ pointer: `/data/${index}` });
    expectError(await detach(licensePath, [own.id, notAttached.id]), 422, { code: 'ENTITLEMENT_NOT_ATTACHED', source: at(1) });
    expectError(await detach(licensePath, [own.id, randomUUID()]), 422, { code: 'ENTITLEMENT_NOT_ATTACHED', source: at(1) });
    expectError(await detach(licensePath, [own.id, own.id]), 422, { code: 'ENTITLEMENT_NOT_ATTACHED', source: at(1) });
    expectError(await detach(policyPath, [own.id]), 422, { code: 'ENTITLEMENT_NOT_ATTACHED', source: at(0) });
    expect(await listed(licensePath)).toEqual(sorted(onPolicy.id, own.id, other.id));

    expect((await detach(licensePath, [own.id])).status).toBe(204);
    expect(await listed(licensePath)).toEqual(sorted(onPolicy.id, other.id));
    expect((await detach(policyPath, [onPolicy.id])).status).toBe(204);
    expect(await listed(licensePath)).toEqual([other.id]);
    // Now held by neither, it may go on the license itself.
    expect((await attach(licensePath, [onPolicy.id])).status).toBe(200);
  });

  it('is for administrators and the product that owns the holder; the others are refused before any rule', async () => {
    const owner = await newUser(account);
    const { product, policy, policyPath } = await holders();
    const license = await l.license(policy.id, {}, { owner: owner.id });
    const licensePath = `/licenses/${license.id}`;
    const [a, b] = await Promise.all([entitlement(), entitlement()]);
    const productToken = await l.productToken(product.id);
    const otherProduct = await l.productToken((await l.product()).id);
    const licenseToken = await l.licenseToken(license.id);
    expect((await attach(policyPath, [a.id], { token: productToken })).status).toBe(200);
    expect((await attach(licensePath, [b.id], { token: productToken })).status).toBe(200);
    for (const bearer of [{ token: licenseToken }, { authorization: `License ${license.attributes.key}` }, { token: owner.token }]) {
      expectError(await attach(licensePath, [randomUUID()], bearer), 403);
      expectError(await detach(licensePath, [b.id], bearer), 403);
      expectError(await attach(policyPath, [randomUUID()], bearer), 403);
    }
    expectError(await attach(licensePath, [randomUUID()], { token: otherProduct }), 404);
    expectError(await attach(policyPath, [randomUUID()], { token: otherProduct }), 404);
    expect((await detach(licensePath, [b.id], { token: productToken })).status).toBe(204);
    expect((await detach(policyPath, [a.id], { token: productToken })).status).toBe(204);
  });

  it('attaches a global entitlement to a license of a SHARED environment; a global license is read-only there', async () => {
    const shared = await newEnvironment(account, 'SHARED');
    const inShared = await holders({ environment: shared.code });
    const global = await holders();
    const feature = await entitlement();
    const reply = await attach(inShared.licensePath, [feature.id], { environment: shared.code });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data[0].relationships.environment.data).toEqual({ type: 'environments', id: shared.id });
    expect(await listed(inShared.licensePath, { environment: shared.code })).toEqual([feature.id]);
    expectError(await attach(global.licensePath, [feature.id], { environment: shared.code }), 403);
    expectError(await l.api('GET', `${inShared.licensePath}/entitlements`), 404);
  });

  it('of concurrent attaches of the same entitlement one wins, the others find it taken; different ones all land', async () => {
    const { licensePath } = await holders();
    const feature = await entitlement();
    const replies: Reply[] = await Promise.all(Array.from({ length: 10 }, () => attach(licensePath, [feature.id])));
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1);
    for (const reply of replies.filter((r) => r.status !== 200)) expectError(reply, 422, { code: 'ENTITLEMENT_TAKEN' });
    expect(await listed(licensePath)).toEqual([feature.id]);

    const others = await Promise.all(Array.from({ length: 5 }, () => entitlement()));
    const landed = await Promise.all(others.map((other) => attach(licensePath, [other.id])));
    expect(landed.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await listed(licensePath)).toEqual(sorted(feature.id, ...others.map((o) => o.id)));
  });

  it('emits the attached and detached events with the attachments', async () => {
    const { policyPath, licensePath } = await holders();
    const [a, b] = await Promise.all([entitlement(), entitlement()]);
    const toPolicy = await attach(policyPath, [a.id]);
    const toLicense = await attach(licensePath, [b.id]);
    expect((await detach(licensePath, [b.id])).status).toBe(204);
    expect((await detach(policyPath, [a.id])).status).toBe(204);
    const payloadOf = (kind: string, attachmentId: string) => (all: ReturnType<typeof ofKind>) =>
      all.filter((d) => d.json.data.attributes.event === kind).find((d) => d.json.data.attributes.payload.includes(attachmentId));
    const expected = [
      ['policy.entitlements.attached', toPolicy.body.data[0]],
      ['policy.entitlements.detached', toPolicy.body.data[0]],
      ['license.entitlements.attached', toLicense.body.data[0]],
      ['license.entitlements.detached', toLicense.body.data[0]],
    ] as const;
    const deliveries = await receiver.waitFor((all) => expected.every(([kind, object]) => payloadOf(kind, object.id)(all)));
    for (const [kind, object] of expected) {
      expect(JSON.parse(payloadOf(kind, object.id)(deliveries)!.json.data.attributes.payload)).toEqual({ data: [object] });
    }
  });
});

describe('what removals take with them', () => {
  const pointersOf = (entitlementId: string) => partitionItems(undefined, entitlementHoldersPartition(account.id, entitlementId));

  it('deleting an entitlement detaches it from every policy and license', async () => {
    const { policy, policyPath, licensePath } = await holders();
    const other = await l.license(policy.id);
    const [doomed, kept] = await Promise.all([entitlement(), entitlement()]);
    expect((await attach(policyPath, [doomed.id])).status).toBe(200);
    expect((await attach(`/licenses/${other.id}`, [kept.id])).status).toBe(200);
    const second = await holders();
    expect((await attach(second.licensePath, [doomed.id, kept.id])).status).toBe(200);
    expect(await pointersOf(doomed.id)).toHaveLength(2);

    expect((await l.api('DELETE', `/entitlements/${doomed.id}`)).status).toBe(204);
    expect(await listed(policyPath)).toEqual([]);
    expect(await listed(licensePath)).toEqual([]);
    expect(await listed(second.licensePath)).toEqual([kept.id]);
    expect(await pointersOf(doomed.id)).toEqual([]);
    expectError(await attach(licensePath, [doomed.id]), 422, { code: 'ENTITLEMENT_NOT_FOUND' });
  });

  it('deleting a license, a policy or a product removes their attachments and pointers', async () => {
    const g = await holders();
    const policyLicense = await l.license(g.policy.id);
    const [feature, own, ofOther] = await Promise.all([entitlement(), entitlement(), entitlement()]);
    expect((await attach(g.policyPath, [feature.id])).status).toBe(200);
    expect((await attach(g.licensePath, [own.id])).status).toBe(200);
    expect((await attach(`/licenses/${policyLicense.id}`, [ofOther.id])).status).toBe(200);
    const survivor = await holders();
    expect((await attach(survivor.policyPath, [feature.id])).status).toBe(200);

    const setOf = (holder: 'policies' | 'licenses', id: string) => getItem(entitlementSetKey(account.id, holder, id));
    expect(await setOf('licenses', g.license.id)).toBeDefined();
    expect((await l.api('DELETE', g.licensePath)).status).toBe(204);
    expect(await setOf('licenses', g.license.id)).toBeUndefined();

    expect((await l.api('DELETE', `/products/${g.product.id}`)).status).toBe(204);
    expect(await setOf('policies', g.policy.id)).toBeUndefined();
    expect(await setOf('licenses', policyLicense.id)).toBeUndefined();
    expect(await getItem(entitlementHolderKey(account.id, feature.id, 'policies', g.policy.id))).toBeUndefined();
    expect((await pointersOf(feature.id)).map((pointer) => pointer.holderId)).toEqual([survivor.policy.id]);
    expect(await listed(survivor.policyPath)).toEqual([feature.id]);
  });
});

describe('one request after another never meets a conflict', () => {
  /** Attaches to `holder`, expecting 200 and nothing else. */
  const attached = async (holder: string, entitlementIds: string[]) => {
    const reply = await attach(holder, entitlementIds);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  };

  for (const which of ['policy', 'license'] as const) {
    it(`a ${which}: attach, delete the entitlement, attach another, and another`, async () => {
      const g = await holders();
      const path = which === 'policy' ? g.policyPath : g.licensePath;
      const [first, second, third] = await Promise.all([entitlement(), entitlement(), entitlement()]);
      await attached(path, [first.id]);
      expect((await l.api('DELETE', `/entitlements/${first.id}`)).status).toBe(204);
      expect(await listed(path)).toEqual([]);
      await attached(path, [second.id]);
      await attached(path, [third.id]);
      expect(await listed(path)).toEqual(sorted(second.id, third.id));
    });

    it(`a ${which}: detach every entitlement, then attach again`, async () => {
      const g = await holders();
      const path = which === 'policy' ? g.policyPath : g.licensePath;
      const [first, second] = await Promise.all([entitlement(), entitlement()]);
      await attached(path, [first.id]);
      expect((await detach(path, [first.id])).status).toBe(204);
      await attached(path, [second.id]);
      await attached(path, [first.id]);
      expect(await listed(path)).toEqual(sorted(first.id, second.id));
    });
  }

  it('a set as an earlier version left it (its count at 0 with no entries, or drifted) takes the next attach and is put right', async () => {
    const g = await holders();
    const [first, second, third] = await Promise.all([entitlement(), entitlement(), entitlement()]);
    await attached(g.policyPath, [first.id]);
    await attached(g.licensePath, [second.id]);
    // As an entitlement's delete left a set before: its entry gone, its count at 0, no version.
    const damage = new Transaction();
    damage.patch(entitlementSetKey(account.id, 'policies', g.policy.id), { [`entitlement#${first.id}`]: null, n: 0, v: null });
    damage.patch(entitlementSetKey(account.id, 'licenses', g.license.id), { n: 7, v: null });
    await damage.commit();
    await attached(g.policyPath, [third.id]);
    await attached(g.licensePath, [first.id]);
    expect(await listed(g.policyPath)).toEqual([third.id]);
    expect((await getItem(entitlementSetKey(account.id, 'policies', g.policy.id)))?.n).toBe(1);
    expect((await getItem(entitlementSetKey(account.id, 'licenses', g.license.id)))?.n).toBe(2);
  });

  it('an entitlement deleted while attached to 3 policies and 2 licenses leaves each free to take others', async () => {
    const groups = await Promise.all([holders(), holders(), holders(), holders(), holders()]);
    // Three policies, and two licenses of other policies (a license may not hold what its policy holds).
    const paths = [...groups.slice(0, 3).map((g) => g.policyPath), ...groups.slice(3).map((g) => g.licensePath)];
    const doomed = await entitlement();
    for (const path of paths) await attached(path, [doomed.id]);
    expect((await l.api('DELETE', `/entitlements/${doomed.id}`)).status).toBe(204);
    for (const path of paths) {
      const [next, after] = await Promise.all([entitlement(), entitlement()]);
      await attached(path, [next.id]);
      await attached(path, [after.id]);
      if (path.startsWith('/policies')) expect(await listed(path)).toEqual(sorted(next.id, after.id));
    }
    const violations = await checkConsistency({ accountId: account.id });
    expect(violations.filter((v) => v.rule.startsWith('entitlement') || v.rule === 'parent-missing')).toEqual([]);
  });

  it('attaches racing the delete of their entitlement leave every set as it should be', async () => {
    const groups = await Promise.all([holders(), holders(), holders(), holders()]);
    const paths = [groups[0]!.policyPath, groups[1]!.policyPath, groups[2]!.licensePath, groups[3]!.licensePath];
    for (let round = 0; round < 3; round++) {
      const [raced, kept] = await Promise.all([entitlement(), entitlement()]);
      await attached(paths[round % paths.length]!, [raced.id]);
      const replies = await Promise.all([
        l.api('DELETE', `/entitlements/${raced.id}`),
        ...paths.map((path) => attach(path, [raced.id, kept.id])),
      ]);
      expect(replies[0]!.status).toBe(204);
      for (const reply of replies.slice(1)) {
        // Each attach comes before the delete (200) or after it (422 not found; or taken where the round's first attach stands).
        if (reply.status !== 200) expectError(reply, 422, {});
        expect(['ENTITLEMENT_NOT_FOUND', 'ENTITLEMENT_TAKEN', 'ENTITLEMENT_CONFLICT', undefined]).toContain(reply.body.errors?.[0]?.code);
      }
      for (const path of paths) expect(await listed(path)).not.toContain(raced.id);
    }
    for (const path of paths) {
      // Every holder still takes a new entitlement in one request.
      await attached(path, [(await entitlement()).id]);
    }
    const violations = await checkConsistency({ accountId: account.id });
    expect(violations.filter((v) => v.rule.startsWith('entitlement') || v.rule === 'parent-missing')).toEqual([]);
  });
});

describe('the entitlements scope of a validation', () => {
  const validateKey = (key: string, scope: Record<string, unknown>) =>
    call('POST', `${account.path}/licenses/actions/validate-key`, { body: { meta: { key, scope } } });
  const verdict = (reply: Reply) => {
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return { valid: reply.body.meta.valid, code: reply.body.meta.code };
  };

  it('is VALID when the license holds every code (through its policy or itself), EMPTY for [], MISSING otherwise', async () => {
    const { policyPath, licensePath, license } = await holders();
    const [onPolicy, own, absent] = await Promise.all([entitlement(), entitlement(), entitlement()]);
    expect((await attach(policyPath, [onPolicy.id])).status).toBe(200);
    expect((await attach(licensePath, [own.id])).status).toBe(200);
    const key = license.attributes.key as string;
    const [p, o, a] = [onPolicy, own, absent].map((e) => e.attributes.code);

    expect(verdict(await validateKey(key, { entitlements: [p!, o!] }))).toEqual({ valid: true, code: 'VALID' });
    expect(verdict(await validateKey(key, { entitlements: [p!.toUpperCase(), p!, o!.toLowerCase()] }))).toEqual({
      valid: true,
      code: 'VALID',
    });
    expect(verdict(await validateKey(key, { entitlements: [] }))).toEqual({ valid: false, code: 'ENTITLEMENTS_SCOPE_EMPTY' });
    expect(verdict(await validateKey(key, { entitlements: [p!, a!] }))).toEqual({ valid: false, code: 'ENTITLEMENTS_MISSING' });
    expect(verdict(await validateKey(key, { entitlements: ['NO_SUCH_CODE'] }))).toEqual({ valid: false, code: 'ENTITLEMENTS_MISSING' });
    const echoed = await validateKey(key, { entitlements: [p!, p!] });
    expect(echoed.body.meta.scope).toEqual({ entitlements: [p!, p!] });

    const byBearer = await l.api('POST', `${licensePath}/actions/validate`, { body: { meta: { scope: { entitlements: [o!, a!] } } } });
    expect(verdict(byBearer)).toEqual({ valid: false, code: 'ENTITLEMENTS_MISSING' });
    expect((await detach(licensePath, [own.id])).status).toBe(204);
    expect(verdict(await validateKey(key, { entitlements: [o!] }))).toEqual({ valid: false, code: 'ENTITLEMENTS_MISSING' });
    // A code follows its entitlement: the new one is held, the old one no longer names anything.
    const recoded = await l.api('PATCH', `/entitlements/${onPolicy.id}`, { body: doc('entitlements', { code: `${p}-v2` }) });
    expect(recoded.status).toBe(200);
    expect(verdict(await validateKey(key, { entitlements: [`${p}-v2`] }))).toEqual({ valid: true, code: 'VALID' });
    expect(verdict(await validateKey(key, { entitlements: [p!] }))).toEqual({ valid: false, code: 'ENTITLEMENTS_MISSING' });
  });

  it('comes after the policy and user scopes and before the machine scope', async () => {
    const { policy, license } = await holders();
    const key = license.attributes.key as string;
    expect(verdict(await validateKey(key, { policy: randomUUID(), entitlements: [] }))).toEqual({
      valid: false,
      code: 'POLICY_SCOPE_MISMATCH',
    });
    expect(verdict(await validateKey(key, { user: 'nobody@users.example', entitlements: [] }))).toEqual({
      valid: false,
      code: 'USER_SCOPE_MISMATCH',
    });
    expect(verdict(await validateKey(key, { policy: policy.id, entitlements: ['ABSENT'], fingerprint: 'no-such-machine' }))).toEqual({
      valid: false,
      code: 'ENTITLEMENTS_MISSING',
    });
    expect(verdict(await validateKey(key, { entitlements: [], fingerprint: 'no-such-machine' }))).toEqual({
      valid: false,
      code: 'ENTITLEMENTS_SCOPE_EMPTY',
    });
  });

  it('reads an array of at most 100 strings (400 otherwise)', async () => {
    const { license } = await holders();
    const key = license.attributes.key as string;
    expectError(await validateKey(key, { entitlements: 'FEATURE' }), 400, { source: { pointer: '/meta/scope/entitlements' } });
    expectError(await validateKey(key, { entitlements: [1] }), 400, { source: { pointer: '/meta/scope/entitlements/0' } });
    const many = Array.from({ length: 101 }, (_, i) => `F${i}`);
    expectError(await validateKey(key, { entitlements: many }), 400, { source: { pointer: '/meta/scope/entitlements' } });
  });
});
