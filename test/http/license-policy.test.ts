/**
 * Moving a license to another policy (docs/rules.md §18.12): PUT /licenses/<id>/policy, what
 * follows the license (lists, its machines, components, processes and attachments, its token's
 * reach, validation by key), the expiry under each transfer strategy, the fingerprint counts of
 * UNIQUE_PER_POLICY, Keygen's refusals, and who may.
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

const transfer = (licenseId: string, policyId: string, options: { token?: string; type?: string } = {}) =>
  l.api('PUT', `/licenses/${encodeURIComponent(licenseId)}/policy`, {
    ...(options.token !== undefined && { token: options.token }),
    body: { data: { type: options.type ?? 'policies', id: policyId } },
  });
const validateKey = (key: string) => call('POST', `${account.path}/licenses/actions/validate-key`, { body: { meta: { key } } });

describe.concurrent("a license's policy", () => {
  it('moves to a policy of its product: the license, its lists, what hangs on it, its token and its key follow', async () => {
    const owner = await newUser(account);
    const { product, policy, license, machine } = await l.graph({ owner: owner.id });
    const component = await l.component(machine.id);
    const process = await l.api('POST', '/processes', {
      body: doc('processes', { pid: `pid-${randomUUID()}` }, { machine: ref('machines', machine.id) }),
    });
    expect(process.status).toBe(201);
    const attached = await newUser(account);
    expect((await l.api('POST', `/licenses/${license.id}/users`, { body: { data: [{ type: 'users', id: attached.id }] } })).status).toBe(
      200,
    );
    const token = await l.licenseToken(license.id);
    // A strict node-locked target that watches heartbeats every hour: what hangs on the license is judged by it once moved.
    const target = await l.policy(product.id, {
      strict: true,
      maxMachines: 1,
      floating: false,
      requireHeartbeat: true,
      heartbeatDuration: 3600,
    });
    expect((await validateKey(license.attributes.key)).body.meta.code).toBe('VALID');

    const moved = await transfer(license.attributes.key, target.id, { type: 'policy' });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.data.relationships.policy.data.id).toBe(target.id);
    expect(moved.body.data.attributes.strict).toBe(true);
    const [event] = await eventPayloads(account, 'license.policy.updated', license.id);
    expect(event.data.relationships.policy.data.id).toBe(target.id);

    expect(ids(await l.api('GET', `/licenses?policy=${target.id}`))).toEqual([license.id]);
    expect(ids(await l.api('GET', `/licenses?policy=${policy.id}`))).toEqual([]);
    const counted = await l.api('GET', `/licenses?policy=${target.id}&page[size]=1`);
    expect(counted.body.links.meta.count).toBe(1);
    // Its machine and process are judged by the new policy's heartbeat; its users' attachments filter by it.
    const shownMachine = (await l.api('GET', `/machines/${machine.id}`)).body.data.attributes;
    expect([shownMachine.requireHeartbeat, shownMachine.heartbeatDuration]).toEqual([true, 3600]);
    expect((await l.api('GET', `/processes/${process.body.data.id}`)).body.data.attributes.interval).toBe(3600);
    expect(ids(await l.api('GET', `/licenses?user=${attached.id}&policy=${target.id}`))).toEqual([license.id]);
    expect(ids(await l.api('GET', `/licenses?user=${attached.id}&policy=${policy.id}`))).toEqual([]);
    expect((await l.api('GET', `/components/${component.id}`)).status).toBe(200);
    // Its token reaches the new policy, not the old one; its key validates under the new policy.
    expect((await l.api('GET', `/policies/${target.id}`, { token })).status).toBe(200);
    expect((await l.api('GET', `/policies/${policy.id}`, { token })).status).toBe(404);
    expect((await validateKey(license.attributes.key)).body.meta.code).toBe('VALID');
    expect((await l.api('DELETE', `/machines/${machine.id}`)).status).toBe(204);
    expect((await validateKey(license.attributes.key)).body.meta.code).toBe('NO_MACHINE');
    // A user attached reaches the new policy through the license.
    expect((await l.api('GET', `/policies/${target.id}`, { token: attached.token })).status).toBe(200);
    // Activating goes on under the new policy.
    const again = await l.machine(license.id);
    expect((await l.api('GET', `/machines/${again.id}`)).body.data.attributes.heartbeatDuration).toBe(3600);
  });

  it('leaves no machine under the old policy when activations race the move', async () => {
    const { product, license } = await l.graph({ policy: { maxMachines: 50 } });
    const target = await l.policy(product.id, { maxMachines: 50, requireHeartbeat: true, heartbeatDuration: 1800 });
    const [moved, ...activations] = await Promise.all([
      transfer(license.id, target.id),
      ...Array.from({ length: 20 }, () =>
        l.api('POST', '/machines', {
          body: doc('machines', { fingerprint: `fp-${randomUUID()}` }, { license: ref('licenses', license.id) }),
        }),
      ),
    ]);
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(activations.map((reply) => reply.status).filter((status) => status !== 201)).toEqual([]);
    const machines = await l.api('GET', `/licenses/${license.id}/machines?page[size]=100`);
    // The graph's own machine and the 20 activated.
    expect(machines.body.data.map((machine: any) => machine.attributes.heartbeatDuration)).toEqual(Array(21).fill(1800));
  });

  it('keeps the expiry under KEEP_EXPIRY (the default) and starts the duration afresh under RESET_EXPIRY', async () => {
    const { product, license } = await l.graph({ policy: { duration: 86_400 * 30 } });
    const keep = await l.policy(product.id, { duration: 86_400 * 365 });
    const kept = await transfer(license.id, keep.id);
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body.data.attributes.expiry).toBe(license.attributes.expiry);
    const reset = await l.policy(product.id, { duration: 86_400 * 365, transferStrategy: 'RESET_EXPIRY' });
    expect(reset.attributes.transferStrategy).toBe('RESET_EXPIRY');
    const before = Date.now();
    const renewed = await transfer(license.id, reset.id);
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
    const expiry = Date.parse(renewed.body.data.attributes.expiry);
    expect(expiry).toBeGreaterThanOrEqual(before + 365 * 86_400_000 - 1000);
    expect(expiry).toBeLessThanOrEqual(Date.now() + 365 * 86_400_000 + 1000);
    // Naming the policy it has already is no renewal.
    const same = await transfer(license.id, reset.id);
    expect(same.body.data.attributes.expiry).toBe(renewed.body.data.attributes.expiry);
    const perpetual = await l.policy(product.id, { transferStrategy: 'RESET_EXPIRY' });
    expect((await transfer(license.id, perpetual.id)).body.data.attributes.expiry).toBeNull();
    expectCode(
      await l.api('PATCH', `/policies/${perpetual.id}`, { body: doc('policies', { transferStrategy: 'SOMETIMES' }) }),
      422,
      'TRANSFER_STRATEGY_NOT_ALLOWED',
    );
  });

  it('moves the fingerprints of UNIQUE_PER_POLICY to the new policy: taken there, free again in the old one', async () => {
    const strategies = { machineUniquenessStrategy: 'UNIQUE_PER_POLICY', componentUniquenessStrategy: 'UNIQUE_PER_POLICY' };
    const { product, policy, license, machine } = await l.graph({ policy: strategies });
    const component = await l.component(machine.id);
    const target = await l.policy(product.id, strategies);
    expect((await transfer(license.id, target.id)).status).toBe(200);
    const fingerprint = machine.attributes.fingerprint;
    const there = await l.license(target.id);
    const taken = await l.api('POST', '/machines', { body: doc('machines', { fingerprint }, { license: ref('licenses', there.id) }) });
    expectCode(taken, 422, 'FINGERPRINT_TAKEN');
    const here = await l.license(policy.id);
    const freed = await l.machine(here.id, { fingerprint });
    expect(freed.id).toBeDefined();
    const part = await l.api('POST', '/components', {
      body: doc('components', { fingerprint: component.attributes.fingerprint, name: 'Part' }, { machine: ref('machines', freed.id) }),
    });
    expect(part.status, JSON.stringify(part.body)).toBe(201);
  });

  it("refuses Keygen's incompatible targets, and a target the request cannot see, changing nothing", async () => {
    const { product, policy, license } = await l.graph({ policy: { machineUniquenessStrategy: 'UNIQUE_PER_LICENSE' } });
    const other = await l.policy((await l.product()).id);
    const stricter = await l.policy(product.id, { machineUniquenessStrategy: 'UNIQUE_PER_PRODUCT' });
    const pooled = await l.policy(product.id, { usePool: true });
    const signed = await l.policy(product.id, { scheme: 'ED25519_SIGN' });
    for (const [target, detail] of [
      [other.id, 'cannot change to a policy for another product'],
      [stricter.id, 'cannot change to a policy with a more strict machine uniqueness strategy'],
      [pooled.id, 'cannot change from a pooled policy to an unpooled policy (or vice-versa)'],
      [signed.id, 'cannot change to a policy with a different scheme'],
    ] as const) {
      const refused = await transfer(license.id, target);
      expectCode(refused, 422, 'POLICY_NOT_COMPATIBLE');
      expect([refused.body.errors[0].detail, refused.body.errors[0].source.pointer]).toEqual([detail, '/data/relationships/policy']);
    }
    expectCode(await transfer(license.id, randomUUID()), 422, 'POLICY_NOT_FOUND');
    expectCode(await transfer(license.id, 'not-a-policy'), 422, 'POLICY_NOT_FOUND');
    expectCode(await l.api('PUT', `/licenses/${license.id}/policy`, { body: { data: null } }), 400);
    expect((await l.api('GET', `/licenses/${license.id}`)).body.data.relationships.policy.data.id).toBe(policy.id);
    expect((await eventPayloads(account, 'license.policy.updated', license.id)).length).toBe(0);
  });

  it('lets its owner move an unprotected license to an unprotected policy, and its product; not another user', async () => {
    const owner = await newUser(account);
    const { product, license } = await l.graph({ owner: owner.id });
    const open = await l.policy(product.id);
    const guarded = await l.policy(product.id, { protected: true });
    expect((await transfer(license.id, open.id, { token: owner.token })).status).toBe(200);
    expectCode(await transfer(license.id, guarded.id, { token: owner.token }), 403);
    expect((await transfer(license.id, guarded.id, { token: await l.productToken(product.id) })).status).toBe(200);
    // A policy of another product is none a product or an owner may name.
    const elsewhere = await l.policy((await l.product()).id);
    expectCode(await transfer(license.id, elsewhere.id, { token: await l.productToken(product.id) }), 422, 'POLICY_NOT_FOUND');
    expectCode(await transfer(license.id, elsewhere.id, { token: owner.token }), 422, 'POLICY_NOT_FOUND');
    const stranger = await newUser(account);
    expectCode(await transfer(license.id, open.id, { token: stranger.token }), 404);
    const { license: protectedLicense } = await l.graph({ owner: owner.id, license: { protected: true } });
    const sibling = await l.policy(protectedLicense.relationships.product.data.id);
    expectCode(await transfer(protectedLicense.id, sibling.id, { token: owner.token }), 403);
  });
});
