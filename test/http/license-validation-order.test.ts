/**
 * License validation in Keygen's order (docs/rules.md §19.1): the first failing check wins —
 * BANNED, SUSPENDED, EXPIRED under REVOKE_ACCESS, then the scopes (environment, product, policy,
 * user, machine, fingerprint(s), components), then the expiry under the other strategies
 * (EXPIRED, valid or not), else VALID — for every expiration strategy and basis, with time moved
 * by writing the expiry in the past. Each scope on its own, and the events of each verdict.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, newEnvironment, newUser, type TestAccount } from '../support/client.ts';
import { doc, type licensing, listeningAccount } from '../support/licensing.ts';
import type { Receiver } from '../support/receiver.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
let receiver: Receiver;

beforeAll(async () => {
  ({ account, l, receiver } = await listeningAccount());
});

afterAll(() => receiver.close());

const DAY = 86_400;
const past = () => new Date(Date.now() - 60_000).toISOString();
type Scope = Record<string, unknown>;
type Options = { environment?: string; headers?: Record<string, string> };

/** The verdict of validate-key, and of validate by id as the admin (checked to agree): [code, valid]. */
async function verdict(license: { id: string; attributes: any }, scope?: Scope, options: Options = {}): Promise<[string, boolean]> {
  const meta = scope ? { scope } : {};
  const [byKey, byId] = await Promise.all([
    call('POST', `${account.path}/licenses/actions/validate-key`, { ...options, body: { meta: { key: license.attributes.key, ...meta } } }),
    call('POST', `${account.path}/licenses/${license.id}/actions/validate`, { ...options, token: account.adminToken, body: { meta } }),
  ]);
  for (const reply of [byKey, byId]) expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(byId.body.meta.code, 'both routes agree').toBe(byKey.body.meta.code);
  return [byKey.body.meta.code, byKey.body.meta.valid];
}

const patchLicense = async (id: string, attributes: Record<string, unknown>) =>
  expect((await l.api('PATCH', `/licenses/${id}`, { body: doc('licenses', attributes) })).status).toBe(200);
const patchPolicy = async (id: string, attributes: Record<string, unknown>) =>
  expect((await l.api('PATCH', `/policies/${id}`, { body: doc('policies', attributes) })).status).toBe(200);
const act = async (id: string, name: string) => expect((await l.api('POST', `/licenses/${id}/actions/${name}`)).status).toBe(200);

const STRATEGIES = ['RESTRICT_ACCESS', 'REVOKE_ACCESS', 'MAINTAIN_ACCESS', 'ALLOW_ACCESS'] as const;
const BASES = ['FROM_CREATION', 'FROM_FIRST_VALIDATION', 'FROM_FIRST_ACTIVATION'] as const;

describe.concurrent('each expiration strategy × basis across the validation order', () => {
  for (const strategy of STRATEGIES) {
    for (const basis of BASES) {
      it(`${strategy} × ${basis}`, async () => {
        const product = await l.product();
        const policy = await l.policy(product.id, { duration: DAY, expirationStrategy: strategy, expirationBasis: basis });
        const license = await l.license(policy.id);
        expect(license.attributes.expiry === null, 'no expiry before its basis').toBe(basis !== 'FROM_CREATION');
        const machine = await l.machine(license.id);
        const fingerprint = machine.attributes.fingerprint as string;
        expect(await verdict(license, { fingerprint })).toEqual(['VALID', true]);
        const started = (await l.api('GET', `/licenses/${license.id}`)).body.data.attributes.expiry;
        expect(Date.parse(started), 'the basis has started the expiry').toBeGreaterThan(Date.now());

        await patchLicense(license.id, { expiry: past() });
        const expired: [string, boolean] = ['EXPIRED', strategy === 'MAINTAIN_ACCESS' || strategy === 'ALLOW_ACCESS'];
        const revoked = strategy === 'REVOKE_ACCESS';
        expect(await verdict(license)).toEqual(expired);
        expect(await verdict(license, { fingerprint })).toEqual(expired);
        // Under REVOKE_ACCESS the expiry comes before every scope; otherwise after them all.
        expect(await verdict(license, { product: randomUUID() })).toEqual(revoked ? expired : ['PRODUCT_SCOPE_MISMATCH', false]);
        expect(await verdict(license, { fingerprint: 'not-activated' })).toEqual(revoked ? expired : ['FINGERPRINT_SCOPE_MISMATCH', false]);
        // SUSPENDED comes first whatever the strategy.
        await act(license.id, 'suspend');
        expect(await verdict(license, { product: randomUUID() })).toEqual(['SUSPENDED', false]);
        await act(license.id, 'reinstate');
        // Only REVOKE_ACCESS stops the license authenticating.
        const asLicense = await l.api('GET', `/licenses/${license.id}`, { authorization: `License ${license.attributes.key}` });
        if (revoked) expectError(asLicense, 403, { code: 'LICENSE_EXPIRED' });
        else expect(asLicense.status).toBe(200);
        // Moving the expiry into the future again: VALID.
        await patchLicense(license.id, { expiry: new Date(Date.now() + 3_600_000).toISOString() });
        expect(await verdict(license, { fingerprint })).toEqual(['VALID', true]);
      });
    }
  }
});

describe.concurrent('the order, one failing check after another', () => {
  it('BANNED, SUSPENDED, EXPIRED (REVOKE_ACCESS), environment, product, policy, user, machine, fingerprint, components, EXPIRED, VALID', async () => {
    const owner = await newUser(account, { email: `Owner-${randomUUID().slice(0, 8)}@Example.com` });
    const product = await l.product();
    const policy = await l.policy(product.id, { duration: DAY, expirationStrategy: 'REVOKE_ACCESS', requireComponentsScope: true });
    const license = await l.license(policy.id, {}, { owner: owner.id });
    const machine = await l.machine(license.id);
    const part = `part-${randomUUID()}`;
    await l.component(machine.id, part);
    const other = await l.machine((await l.license(policy.id)).id);
    const scope: Scope = {
      environment: 'nowhere',
      product: randomUUID(),
      policy: randomUUID(),
      user: 'somebody@else.example',
      machine: other.id,
      fingerprint: 'not-activated',
      components: [],
    };
    await patchLicense(license.id, { expiry: past() });
    await act(license.id, 'suspend');
    expect((await l.api('POST', `/users/${owner.id}/actions/ban`)).status).toBe(200);
    const steps: [() => Promise<unknown>, string, boolean][] = [
      [async () => undefined, 'BANNED', false],
      [() => l.api('POST', `/users/${owner.id}/actions/unban`), 'SUSPENDED', false],
      [() => act(license.id, 'reinstate'), 'EXPIRED', false],
      [() => patchPolicy(policy.id, { expirationStrategy: 'RESTRICT_ACCESS' }), 'ENVIRONMENT_SCOPE_MISMATCH', false],
      [async () => (scope.environment = null), 'PRODUCT_SCOPE_MISMATCH', false],
      [async () => (scope.product = product.id.toUpperCase()), 'POLICY_SCOPE_MISMATCH', false],
      [async () => (scope.policy = policy.id), 'USER_SCOPE_MISMATCH', false],
      [async () => (scope.user = owner.email.toUpperCase()), 'MACHINE_SCOPE_MISMATCH', false],
      [async () => (scope.machine = machine.id), 'FINGERPRINT_SCOPE_MISMATCH', false],
      [async () => (scope.fingerprint = machine.attributes.fingerprint), 'COMPONENTS_SCOPE_EMPTY', false],
      [async () => delete scope.components, 'COMPONENTS_SCOPE_REQUIRED', false],
      [async () => (scope.components = [part]), 'EXPIRED', false],
      [() => patchPolicy(policy.id, { expirationStrategy: 'MAINTAIN_ACCESS' }), 'EXPIRED', true],
      [() => patchLicense(license.id, { expiry: null }), 'VALID', true],
    ];
    for (const [change, code, valid] of steps) {
      await change();
      expect(await verdict(license, scope), code).toEqual([code, valid]);
    }
  });
});

describe.concurrent('each scope', () => {
  it('environment: by id or code (any case) inside the license environment; null for a global one; anything else mismatches', async () => {
    const isolated = await newEnvironment(account, 'ISOLATED');
    const shared = await newEnvironment(account, 'SHARED');
    const inside = { environment: isolated.code };
    const product = await l.product({}, inside);
    const license = await l.license((await l.policy(product.id, {}, inside)).id, {}, inside);
    for (const named of [isolated.id, isolated.id.toUpperCase(), isolated.code, isolated.code.toUpperCase()]) {
      expect(await verdict(license, { environment: named }, inside), named).toEqual(['VALID', true]);
    }
    for (const named of [shared.code, shared.id, null, 'nowhere']) {
      expect(await verdict(license, { environment: named }, inside), String(named)).toEqual(['ENVIRONMENT_SCOPE_MISMATCH', false]);
    }
    // As Keygen's SDKs send it: the Keygen-Environment header and the scope naming the same environment.
    const sdk = { headers: { 'keygen-environment': isolated.code } };
    expect(await verdict(license, { environment: isolated.code }, sdk)).toEqual(['VALID', true]);

    const global = (await l.graph()).license;
    expect(await verdict(global, { environment: null })).toEqual(['VALID', true]);
    expect(await verdict(global, { environment: shared.code })).toEqual(['ENVIRONMENT_SCOPE_MISMATCH', false]);
    // Seen from a SHARED environment, a global license is still the global environment's.
    expect(await verdict(global, { environment: null }, { environment: shared.code })).toEqual(['VALID', true]);
    expect(await verdict(global, { environment: shared.code }, { environment: shared.code })).toEqual([
      'ENVIRONMENT_SCOPE_MISMATCH',
      false,
    ]);
  });

  it("user: the owner's id or e-mail, in any case; a license without an owner matches nobody", async () => {
    const owner = await newUser(account);
    const g = await l.graph({ owner: owner.id });
    for (const named of [owner.id, owner.id.toUpperCase(), owner.email, owner.email.toUpperCase()]) {
      expect(await verdict(g.license, { user: named }), named).toEqual(['VALID', true]);
    }
    const stranger = await newUser(account);
    for (const named of [stranger.id, stranger.email, 'nobody']) {
      expect(await verdict(g.license, { user: named }), named).toEqual(['USER_SCOPE_MISMATCH', false]);
    }
    const unowned = (await l.graph()).license;
    expect(await verdict(unowned, { user: owner.id })).toEqual(['USER_SCOPE_MISMATCH', false]);
  });

  it('machine: NO_MACHINE (node-locked) or NO_MACHINES (floating) without machines; a machine of the license by id, else mismatch', async () => {
    const product = await l.product();
    const floating = await l.license((await l.policy(product.id)).id);
    const nodeLocked = await l.license((await l.policy(product.id, { maxMachines: 1 })).id);
    const elsewhere = await l.machine((await l.license((await l.policy(product.id)).id)).id);
    expect(await verdict(floating, { machine: elsewhere.id })).toEqual(['NO_MACHINES', false]);
    expect(await verdict(nodeLocked, { machine: elsewhere.id })).toEqual(['NO_MACHINE', false]);
    const own = await l.machine(floating.id);
    expect(await verdict(floating, { machine: own.id })).toEqual(['VALID', true]);
    expect(await verdict(floating, { machine: own.id.toUpperCase() })).toEqual(['VALID', true]);
    for (const named of [elsewhere.id, randomUUID(), 'not-a-uuid']) {
      expect(await verdict(floating, { machine: named }), named).toEqual(['MACHINE_SCOPE_MISMATCH', false]);
    }
  });

  it('fingerprints: empty → FINGERPRINT_SCOPE_EMPTY; no machine → NO_MACHINES; one activated among them suffices; fingerprint wins', async () => {
    const product = await l.product();
    const license = await l.license((await l.policy(product.id)).id);
    expect(await verdict(license, { fingerprints: [] })).toEqual(['FINGERPRINT_SCOPE_EMPTY', false]);
    expect(await verdict(license, { fingerprints: ['a', 'b'] })).toEqual(['NO_MACHINES', false]);
    const known = (await l.machine(license.id)).attributes.fingerprint as string;
    expect(await verdict(license, { fingerprints: ['a', 'b'] })).toEqual(['FINGERPRINT_SCOPE_MISMATCH', false]);
    expect(await verdict(license, { fingerprints: ['a', known, 'b', known] })).toEqual(['VALID', true]);
    expect(await verdict(license, { fingerprint: 'a', fingerprints: [known] })).toEqual(['FINGERPRINT_SCOPE_MISMATCH', false]);
    // Components are matched against the one machine `fingerprint` names.
    expect(await verdict(license, { fingerprints: [known], components: ['x'] })).toEqual(['FINGERPRINT_SCOPE_REQUIRED', false]);
    const tooMany = await call('POST', `${account.path}/licenses/actions/validate-key`, {
      body: { meta: { key: license.attributes.key, scope: { fingerprints: Array.from({ length: 101 }, (_, i) => `f${i}`) } } },
    });
    expectError(tooMany, 400, { source: { pointer: '/meta/scope/fingerprints' } });
  });
});

describe.concurrent('events', () => {
  it('license.validation.succeeded for a valid verdict (an expired license under ALLOW_ACCESS too), failed otherwise', async () => {
    const product = await l.product();
    const license = await l.license((await l.policy(product.id, { expirationStrategy: 'ALLOW_ACCESS' })).id, { expiry: past() });
    const allowed = await call('POST', `${account.path}/licenses/actions/validate-key`, {
      body: { meta: { key: license.attributes.key, nonce: 11 } },
    });
    expect(allowed.body.meta).toMatchObject({ code: 'EXPIRED', valid: true });
    const refused = await call('POST', `${account.path}/licenses/actions/validate-key`, {
      body: { meta: { key: license.attributes.key, scope: { policy: randomUUID() } } },
    });
    expect(refused.body.meta).toMatchObject({ code: 'POLICY_SCOPE_MISMATCH', valid: false });
    const metaOf = async (kind: string) => {
      const events = (await l.api('GET', `/webhook-events?events[]=${kind}&page[size]=100`)).body.data as any[];
      return events.map((event) => JSON.parse(event.attributes.payload)).filter((payload) => payload.data.id === license.id)[0]?.meta;
    };
    expect(await metaOf('license.validation.succeeded')).toEqual(allowed.body.meta);
    expect(await metaOf('license.validation.failed')).toEqual(refused.body.meta);
  });
});
