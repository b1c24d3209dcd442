/**
 * Usage metering (docs/rules.md §18.6): a license's `uses` raised, lowered and reset by its usage
 * actions within 0 and its `maxUses` (its own, else its policy's), by id or by key; Keygen's
 * errors, events and who may; and the limit holding under concurrent increments. Also what a
 * license shows of its policy (§18.7).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newUser, type TestAccount } from '../support/client.ts';
import { doc, expectCode, type licensing, listeningAccount } from '../support/licensing.ts';
import type { Receiver } from '../support/receiver.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
let receiver: Receiver;

beforeAll(async () => {
  ({ account, l, receiver } = await listeningAccount());
});

afterAll(() => receiver.close());

/** A license under a new policy with these attributes (`license` its own attributes, `owner` its owner). */
async function licenseUnder(policy: Record<string, unknown>, license: Record<string, unknown> = {}, owner?: string) {
  const product = await l.product();
  const made = await l.policy(product.id, policy);
  return { product, policy: made, license: await l.license(made.id, license, { owner }) };
}

type Action = 'increment' | 'decrement' | 'reset';
const use = (id: string, action: Action, meta?: Record<string, unknown>, options: { token?: string; authorization?: string } = {}) =>
  l.api('POST', `/licenses/${encodeURIComponent(id)}/actions/${action}-usage`, { ...options, body: meta && { meta } });

const usesOf = async (id: string) => (await l.api('GET', `/licenses/${id}`)).body.data.attributes.uses as number;

/** The payloads of the webhook events of `kind` about license `id`. */
async function eventsOf(kind: string, id: string) {
  const reply = await l.api('GET', `/webhook-events?events[]=${kind}&page[size]=100`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return (reply.body.data as any[]).map((event) => JSON.parse(event.attributes.payload)).filter((payload) => payload.data.id === id);
}

describe.concurrent('counting uses', () => {
  it('increments by 1 or by meta.increment, decrements, resets; by id and by key; each with its event', async () => {
    const { license } = await licenseUnder({ maxUses: 100 });
    expect(license.attributes).toMatchObject({ uses: 0, maxUses: 100 });
    const once = await use(license.id, 'increment');
    expect(once.status, JSON.stringify(once.body)).toBe(200);
    expect(once.body.data.attributes).toMatchObject({ uses: 1, maxUses: 100 });
    const byKey = await use(license.attributes.key, 'increment', { increment: 74 });
    expect(byKey.status, JSON.stringify(byKey.body)).toBe(200);
    expect(byKey.body.data).toMatchObject({ id: license.id, attributes: { uses: 75 } });
    const down = await use(license.id, 'decrement', { decrement: 50 });
    expect(down.body.data.attributes.uses).toBe(25);
    expect((await use(license.id, 'decrement')).body.data.attributes.uses).toBe(24);
    expect(await usesOf(license.id)).toBe(24);
    const reset = await use(license.id, 'reset');
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect(reset.body.data.attributes.uses).toBe(0);
    expect(await usesOf(license.id)).toBe(0);

    const incremented = await eventsOf('license.usage.incremented', license.id);
    expect(incremented.map((payload) => payload.data.attributes.uses).sort((a, b) => a - b)).toEqual([1, 75]);
    expect((await eventsOf('license.usage.decremented', license.id)).map((payload) => payload.data.attributes.uses).sort()).toEqual([
      24, 25,
    ]);
    expect((await eventsOf('license.usage.reset', license.id)).map((payload) => payload.data.attributes.uses)).toEqual([0]);
  });

  it('past maxUses: 422 USES_LIMIT_EXCEEDED; below 0: 422 USES_INVALID; nothing changes and no event is written', async () => {
    const { license } = await licenseUnder({ maxUses: 5 });
    expect((await use(license.id, 'increment', { increment: 5 })).body.data.attributes.uses).toBe(5);
    const over = expectCode(await use(license.id, 'increment'), 422, 'USES_LIMIT_EXCEEDED');
    expect(over).toMatchObject({
      detail: 'usage exceeds maximum allowed by current policy (5)',
      source: { pointer: '/data/attributes/uses' },
    });
    expectCode(await use(license.id, 'increment', { increment: 100 }), 422, 'USES_LIMIT_EXCEEDED');
    const under = expectCode(await use(license.id, 'decrement', { decrement: 6 }), 422, 'USES_INVALID');
    expect(under).toMatchObject({ detail: 'must be greater than or equal to 0', source: { pointer: '/data/attributes/uses' } });
    // Not by a negative number: that would be a decrement, which a license or its owner may not make.
    for (const action of ['increment', 'decrement'] as const) {
      const negative = expectCode(await use(license.id, action, { [action]: -1 }), 400, 'PARAMETER_INVALID');
      expect(negative).toMatchObject({ detail: 'must not be negative', source: { pointer: `/meta/${action}` } });
    }
    expect(await usesOf(license.id)).toBe(5);
    expect(await eventsOf('license.usage.incremented', license.id)).toHaveLength(1);
    expect(await eventsOf('license.usage.decremented', license.id)).toHaveLength(0);

    const fresh = (await licenseUnder({ maxUses: 5 })).license;
    expectCode(await use(fresh.id, 'decrement'), 422, 'USES_INVALID');
    expect(await usesOf(fresh.id)).toBe(0);
  });

  it('an integer no license can count: 400 at its pointer; bodies of the wrong shape: 400', async () => {
    const { license } = await licenseUnder({});
    // Keygen's own example, 46116860184273879031, as JSON.parse reads it.
    for (const [action, value] of [
      ['increment', 4.611686018427388e19],
      ['increment', 2_147_483_648],
      ['decrement', 4.611686018427388e19],
    ] as const) {
      const reply = await use(license.id, action, { [action]: value });
      const error = expectCode(reply, 400, 'PARAMETER_INVALID');
      expect(error).toMatchObject({ detail: 'integer is too large', source: { pointer: `/meta/${action}` } });
    }
    // Unlimited, the count itself stops at the largest integer.
    expect((await use(license.id, 'increment', { increment: 2_147_483_647 })).status).toBe(200);
    const past = expectCode(await use(license.id, 'increment'), 400, 'PARAMETER_INVALID');
    expect(past).toMatchObject({ detail: 'integer is too large', source: { pointer: '/meta/increment' } });
    expect(await usesOf(license.id)).toBe(2_147_483_647);
    for (const meta of [{ increment: 1.5 }, { increment: '1' }, { decrement: 1 }, { other: 1 }]) {
      expectCode(await use(license.id, 'increment', meta), 400, 'PARAMETER_INVALID');
    }
    expectCode(await use(license.id, 'decrement', { increment: 1 }), 400, 'PARAMETER_INVALID');
  });

  it("a license's own maxUses overrides its policy's (null returns to it); lowering it below the count refuses the next increment", async () => {
    const { license, policy } = await licenseUnder({ maxUses: 5 }, { maxUses: 10 });
    expect(license.attributes.maxUses).toBe(10);
    expect((await use(license.id, 'increment', { increment: 6 })).body.data.attributes.uses).toBe(6);
    const lowered = await l.api('PATCH', `/licenses/${license.id}`, { body: doc('licenses', { maxUses: null }) });
    expect(lowered.status, JSON.stringify(lowered.body)).toBe(200);
    expect(lowered.body.data.attributes).toMatchObject({ uses: 6, maxUses: 5 });
    expectCode(await use(license.id, 'increment'), 422, 'USES_LIMIT_EXCEEDED');
    // The policy's limit is read as it is now.
    const raised = await l.api('PATCH', `/policies/${policy.id}`, { body: doc('policies', { maxUses: 7 }) });
    expect(raised.body.data.attributes.maxUses).toBe(7);
    expect((await use(license.id, 'increment')).body.data.attributes).toMatchObject({ uses: 7, maxUses: 7 });
    for (const maxUses of [-1, 2_147_483_648]) {
      expectCode(await l.api('PATCH', `/licenses/${license.id}`, { body: doc('licenses', { maxUses }) }), 422, 'MAX_USES_INVALID');
      expectCode(await l.api('PATCH', `/policies/${policy.id}`, { body: doc('policies', { maxUses }) }), 422, 'MAX_USES_INVALID');
    }
    const zero = await licenseUnder({ maxUses: 0 });
    expect(zero.license.attributes.maxUses).toBe(0);
    expectCode(await use(zero.license.id, 'increment'), 422, 'USES_LIMIT_EXCEEDED');
  });

  it('50 concurrent increments of 1 under maxUses 20: exactly 20 succeed, and uses is 20', async () => {
    const { license } = await licenseUnder({ maxUses: 20 });
    const replies = await Promise.all(Array.from({ length: 50 }, () => use(license.id, 'increment')));
    const statuses = replies.map((reply) => reply.status);
    expect(
      statuses.filter((status) => status === 200),
      JSON.stringify(statuses),
    ).toHaveLength(20);
    for (const reply of replies) if (reply.status !== 200) expectCode(reply, 422, 'USES_LIMIT_EXCEEDED');
    expect(await usesOf(license.id)).toBe(20);
    expect(await eventsOf('license.usage.incremented', license.id)).toHaveLength(20);
  });

  it('concurrent increments and decrements lose none: from 20, 30 up and 20 down leave 30', async () => {
    const { license } = await licenseUnder({});
    expect((await use(license.id, 'increment', { increment: 20 })).status).toBe(200);
    const replies = await Promise.all([
      ...Array.from({ length: 30 }, () => use(license.id, 'increment')),
      ...Array.from({ length: 20 }, () => use(license.id, 'decrement')),
    ]);
    expect(replies.map((reply) => reply.status)).toEqual(Array(50).fill(200));
    expect(await usesOf(license.id)).toBe(30);
  });
});

describe.concurrent('who may count uses', () => {
  it('Keygen: the license itself and its owner increment (not a protected one); only administrators and the product lower or reset', async () => {
    const owner = await newUser(account);
    const other = await newUser(account);
    const { product, license } = await licenseUnder({}, {}, owner.id);
    const productToken = await l.productToken(product.id);
    const otherProduct = await l.productToken((await l.product()).id);
    const licenseToken = await l.licenseToken(license.id);
    const key = { authorization: `License ${license.attributes.key}` };
    for (const credential of [{ token: productToken }, { token: licenseToken }, key, { token: owner.token }]) {
      expect((await use(license.id, 'increment', undefined, credential)).status).toBe(200);
    }
    expect(await usesOf(license.id)).toBe(4);
    for (const action of ['decrement', 'reset'] as const) {
      for (const credential of [{ token: licenseToken }, key, { token: owner.token }]) {
        expectCode(await use(license.id, action, undefined, credential), 403);
      }
      expect((await use(license.id, action, undefined, { token: productToken })).status).toBe(200);
    }
    for (const action of ['increment', 'decrement', 'reset'] as const) {
      expectCode(await use(license.id, action, undefined, { token: otherProduct }), 404);
      expectCode(await use(license.id, action, undefined, { token: other.token }), 404);
    }
    // A license names only itself, as Keygen's answer for another license: 404.
    const another = (await licenseUnder({})).license;
    expectCode(await use(another.id, 'increment', undefined, { token: licenseToken }), 404);
    expectCode(await use(another.id, 'increment', undefined, key), 404);
    expect(await usesOf(another.id)).toBe(0);

    const guarded = (await licenseUnder({ protected: true }, {}, owner.id)).license;
    const refusal = expectCode(await use(guarded.id, 'increment', undefined, { token: owner.token }), 403);
    expect(refusal.detail).toMatch(/protected/);
    expect((await use(guarded.id, 'increment', undefined, { authorization: `License ${guarded.attributes.key}` })).status).toBe(200);
    expect(await usesOf(guarded.id)).toBe(1);
  });

  it('without a bearer: 401; a refused request writes nothing', async () => {
    const { license } = await licenseUnder({});
    const anonymous = await call('POST', `${account.path}/licenses/${license.id}/actions/increment-usage`);
    expectCode(anonymous, 401);
    expect(await usesOf(license.id)).toBe(0);
    expect(await eventsOf('license.usage.incremented', license.id)).toHaveLength(0);
  });
});

describe.concurrent('what a license shows of its policy', () => {
  it("its policy's limits and heartbeat requirement as the policy is now, in every answer and list", async () => {
    const { license, policy } = await licenseUnder({ maxMachines: 3, maxCores: 8, maxProcesses: 4, strict: true, requireHeartbeat: true });
    const shown = { maxMachines: 3, maxCores: 8, maxProcesses: 4, floating: true, strict: true, requireHeartbeat: true, uses: 0 };
    expect(license.attributes).toMatchObject(shown);
    expect((await l.api('GET', `/licenses/${license.id}`)).body.data.attributes).toMatchObject(shown);
    const changed = await l.api('PATCH', `/policies/${policy.id}`, { body: doc('policies', { maxMachines: 1, floating: false }) });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const now = { ...shown, maxMachines: 1, floating: false };
    expect((await l.api('GET', `/licenses/${license.id}`)).body.data.attributes).toMatchObject(now);
    const listed = await l.api('GET', `/licenses?policy=${policy.id}`);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0].attributes).toMatchObject(now);
    const updated = await l.api('PATCH', `/licenses/${license.id}`, { body: doc('licenses', { name: 'Renamed' }) });
    expect(updated.body.data.attributes).toMatchObject({ ...now, name: 'Renamed' });
    const [event] = await eventsOf('license.updated', license.id);
    expect(event.data.attributes).toMatchObject(now);
  });
});
