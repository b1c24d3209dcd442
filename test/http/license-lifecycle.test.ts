/**
 * A license's lifecycle (docs/rules.md §6.3, §17.1, §18.4, §18.5): a policy's expiration model (duration, strategies,
 * bases), the expiry each basis gives a license, the derived status, the actions suspend,
 * reinstate, renew and revoke (who may, their errors, their events, their races), and the
 * standing that stops a license from authenticating by its key or by a license token.
 * Time is moved by writing expiries in the past (PATCH, or the table for a lookup), never by waiting.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digest } from '#shared/auth/secrets.ts';
import { recordKey, tokenLookupKey } from '#shared/store/keys.ts';
import { call, environmentToken, expectError, newEnvironment, newUser, type TestAccount } from '../support/client.ts';
import { doc, expectCode, type licensing, listeningAccount } from '../support/licensing.ts';
import type { Receiver } from '../support/receiver.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
let receiver: Receiver;

beforeAll(async () => {
  ({ account, l, receiver } = await listeningAccount());
});

afterAll(() => receiver.close());

const DAY = 86_400;
const past = (ms = 1000) => new Date(Date.now() - ms).toISOString();

/** A license under a new policy with these attributes (`license` its own attributes, `owner` its owner). */
async function licenseUnder(policy: Record<string, unknown>, license: Record<string, unknown> = {}, owner?: string) {
  const product = await l.product();
  const made = await l.policy(product.id, policy);
  return { product, policy: made, license: await l.license(made.id, license, { owner }) };
}

const get = async (id: string) => (await l.api('GET', `/licenses/${id}`)).body.data;
const patch = (id: string, attributes: Record<string, unknown>) => l.api('PATCH', `/licenses/${id}`, { body: doc('licenses', attributes) });
const action = (id: string, name: string, options: { token?: string; authorization?: string; environment?: string } = {}) =>
  l.api(name === 'revoke' ? 'DELETE' : 'POST', `/licenses/${id}/actions/${name}`, options);
const validateKey = (key: string, scope?: Record<string, unknown>) =>
  call('POST', `${account.path}/licenses/actions/validate-key`, { body: { meta: { key, ...(scope ? { scope } : {}) } } });

/** The webhook events of `kind` about license `id`, as the API lists them (each is written with its change). */
async function eventsOf(kind: string, id: string) {
  const reply = await l.api('GET', `/webhook-events?events[]=${kind}&page[size]=100`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return (reply.body.data as any[]).map((event) => JSON.parse(event.attributes.payload)).filter((payload) => payload.data.id === id);
}

describe.concurrent('policies: the expiration model', () => {
  it('defaults, every value accepted and shown, PATCH changes each (duration back to null)', async () => {
    const product = await l.product();
    const plain = await l.policy(product.id);
    expect(plain.attributes).toMatchObject({
      duration: null,
      expirationStrategy: 'RESTRICT_ACCESS',
      expirationBasis: 'FROM_CREATION',
      renewalBasis: 'FROM_EXPIRY',
    });
    const chosen = {
      duration: DAY,
      expirationStrategy: 'ALLOW_ACCESS',
      expirationBasis: 'FROM_FIRST_ACTIVATION',
      renewalBasis: 'FROM_NOW',
    };
    const made = await l.policy(product.id, chosen);
    expect(made.attributes).toMatchObject(chosen);
    for (const [name, values] of Object.entries({
      expirationStrategy: ['RESTRICT_ACCESS', 'REVOKE_ACCESS', 'MAINTAIN_ACCESS', 'ALLOW_ACCESS'],
      expirationBasis: ['FROM_CREATION', 'FROM_FIRST_VALIDATION', 'FROM_FIRST_ACTIVATION'],
      renewalBasis: ['FROM_EXPIRY', 'FROM_NOW', 'FROM_NOW_IF_EXPIRED'],
      duration: [2_147_483_647, DAY, null],
    })) {
      for (const value of values) {
        const reply = await l.api('PATCH', `/policies/${made.id}`, { body: doc('policies', { [name]: value }) });
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        expect(reply.body.data.attributes[name]).toBe(value);
        expect((await l.api('GET', `/policies/${made.id}`)).body.data.attributes[name]).toBe(value);
      }
    }
  });

  it('422 for a duration out of bounds and for unknown strategies and bases, pointing at the attribute; 400 for a fraction', async () => {
    const product = await l.product();
    const made = await l.policy(product.id);
    const cases: [Record<string, unknown>, string][] = [
      [{ duration: DAY - 1 }, 'DURATION_INVALID'],
      [{ duration: 2_147_483_648 }, 'DURATION_INVALID'],
      [{ duration: 0 }, 'DURATION_INVALID'],
      [{ duration: -DAY }, 'DURATION_INVALID'],
      [{ expirationStrategy: 'REVOKE' }, 'EXPIRATION_STRATEGY_NOT_ALLOWED'],
      [{ expirationBasis: 'FROM_FIRST_USE' }, 'EXPIRATION_BASIS_NOT_ALLOWED'],
      [{ renewalBasis: 'from_now' }, 'RENEWAL_BASIS_NOT_ALLOWED'],
    ];
    for (const [attributes, code] of cases) {
      const pointer = `/data/attributes/${Object.keys(attributes)[0]}`;
      const created = await l.api('POST', '/policies', {
        body: doc('policies', { name: 'P', ...attributes }, { product: { data: { type: 'products', id: product.id } } }),
      });
      expectError(created, 422, { code, source: { pointer } });
      expectError(await l.api('PATCH', `/policies/${made.id}`, { body: doc('policies', attributes) }), 422, { code, source: { pointer } });
    }
    expectError(await l.api('PATCH', `/policies/${made.id}`, { body: doc('policies', { duration: 86_400.5 }) }), 400, {
      source: { pointer: '/data/attributes/duration' },
    });
  });

  it('a policy stored before the model existed reads its defaults, and its licenses follow them', async () => {
    const { policy, license } = await licenseUnder({ duration: DAY, expirationStrategy: 'REVOKE_ACCESS', renewalBasis: 'FROM_NOW' });
    await DynamoDBDocumentClient.from(new DynamoDBClient({})).send(
      new UpdateCommand({
        TableName: process.env.TABLE_NAME,
        Key: recordKey(account.id, 'policies', policy.id),
        UpdateExpression: 'REMOVE #d, #s, #b, #r',
        ExpressionAttributeNames: { '#d': 'duration', '#s': 'expirationStrategy', '#b': 'expirationBasis', '#r': 'renewalBasis' },
      }),
    );
    expect((await l.api('GET', `/policies/${policy.id}`)).body.data.attributes).toMatchObject({
      duration: null,
      expirationStrategy: 'RESTRICT_ACCESS',
      expirationBasis: 'FROM_CREATION',
      renewalBasis: 'FROM_EXPIRY',
    });
    expectCode(await action(license.id, 'renew'), 422, 'LICENSE_NOT_RENEWABLE');
    // RESTRICT_ACCESS: expired, the key still authenticates.
    expect((await patch(license.id, { expiry: past() })).status).toBe(200);
    expect((await l.api('GET', `/licenses/${license.id}`, { authorization: `License ${license.attributes.key}` })).status).toBe(200);
  });
});

describe.concurrent('the expiry each basis gives a license', () => {
  it('FROM_CREATION: created + duration when none is given; the one given otherwise; none without a duration', async () => {
    const { policy, license } = await licenseUnder({ duration: 30 * DAY });
    expect(Date.parse(license.attributes.expiry) - Date.parse(license.attributes.created)).toBe(30 * DAY * 1000);
    const given = new Date(Date.now() + 3_600_000).toISOString();
    expect((await l.license(policy.id, { expiry: given })).attributes.expiry).toBe(given);
    expect((await licenseUnder({})).license.attributes.expiry).toBeNull();
    // An expiry given as null is none given.
    const unset = await l.license(policy.id, { expiry: null });
    expect(Date.parse(unset.attributes.expiry) - Date.parse(unset.attributes.created)).toBe(30 * DAY * 1000);
  });

  it('FROM_FIRST_VALIDATION: the first validation, whatever its verdict, sets it before the verdict; later ones keep it', async () => {
    const { license } = await licenseUnder({ duration: 7 * DAY, expirationBasis: 'FROM_FIRST_VALIDATION' });
    expect(license.attributes.expiry).toBeNull();
    await l.machine(license.id);
    expect((await l.api('GET', `/licenses/${license.id}`)).body.data.attributes.expiry).toBeNull();
    // A failing verdict starts it too; the answer's license shows it.
    const first = await validateKey(license.attributes.key, { product: randomUUID() });
    expect(first.body.meta.code).toBe('PRODUCT_SCOPE_MISMATCH');
    const expiry = first.body.data.attributes.expiry as string;
    expect(Date.parse(expiry) - Date.parse(first.body.data.attributes.updated)).toBe(7 * DAY * 1000);
    expect((await get(license.id)).attributes.expiry).toBe(expiry);
    const second = await call('POST', `${account.path}/licenses/${license.id}/actions/validate`, { token: account.adminToken });
    expect(second.body.meta.code).toBe('VALID');
    expect(second.body.data.attributes.expiry).toBe(expiry);
    // A suspended license's first validation starts it as well.
    const suspended = (await licenseUnder({ duration: DAY, expirationBasis: 'FROM_FIRST_VALIDATION' }, { suspended: true })).license;
    const verdict = await validateKey(suspended.attributes.key);
    expect(verdict.body.meta.code).toBe('SUSPENDED');
    expect(verdict.body.data.attributes.expiry).not.toBeNull();
  });

  it('FROM_FIRST_VALIDATION: 10 concurrent first validations set it once, and all answer the same expiry', async () => {
    const { license } = await licenseUnder({ duration: DAY, expirationBasis: 'FROM_FIRST_VALIDATION' });
    const answers = await Promise.all(Array.from({ length: 10 }, () => validateKey(license.attributes.key)));
    const expiries = new Set(answers.map((answer) => answer.body.data.attributes.expiry as string));
    expect(answers.map((answer) => answer.body.meta.code)).toEqual(Array(10).fill('VALID'));
    expect(expiries.size).toBe(1);
    const [expiry] = [...expiries];
    expect(expiry).not.toBeNull();
    expect((await get(license.id)).attributes.expiry).toBe(expiry);
  });

  it('FROM_FIRST_ACTIVATION: its first machine sets it; validations do not; a second machine keeps it', async () => {
    const { license } = await licenseUnder({ duration: 2 * DAY, expirationBasis: 'FROM_FIRST_ACTIVATION' });
    expect((await validateKey(license.attributes.key)).body.data.attributes.expiry).toBeNull();
    await l.machine(license.id);
    const started = await get(license.id);
    expect(Date.parse(started.attributes.expiry) - Date.parse(started.attributes.updated)).toBe(2 * DAY * 1000);
    await l.machine(license.id);
    expect((await get(license.id)).attributes.expiry).toBe(started.attributes.expiry);
    // An expiry already given is never replaced by an activation.
    const given = new Date(Date.now() + 3_600_000).toISOString();
    const fixed = (await licenseUnder({ duration: 2 * DAY, expirationBasis: 'FROM_FIRST_ACTIVATION' }, { expiry: given })).license;
    await l.machine(fixed.id);
    expect((await get(fixed.id)).attributes.expiry).toBe(given);
  });

  it('a signed key tells its policy duration', async () => {
    const { license } = await licenseUnder({ scheme: 'ED25519_SIGN', duration: 9 * DAY }, { key: 'duration={{duration}}' });
    const dataset = (license.attributes.key as string).slice('key/'.length).split('.')[0]!;
    expect(Buffer.from(dataset.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8')).toBe(`duration=${9 * DAY}`);
  });
});

describe.concurrent('status', () => {
  it('SUSPENDED, EXPIRED, EXPIRING within 3 days, else ACTIVE', async () => {
    const { license } = await licenseUnder({});
    const hours = (n: number) => new Date(Date.now() + n * 3_600_000).toISOString();
    expect(license.attributes.status).toBe('ACTIVE');
    expect((await patch(license.id, { expiry: hours(96) })).body.data.attributes.status).toBe('ACTIVE');
    expect((await patch(license.id, { expiry: hours(71) })).body.data.attributes.status).toBe('EXPIRING');
    expect((await patch(license.id, { expiry: past() })).body.data.attributes.status).toBe('EXPIRED');
    expect((await patch(license.id, { suspended: true })).body.data.attributes.status).toBe('SUSPENDED');
    expect((await patch(license.id, { suspended: false, expiry: null })).body.data.attributes.status).toBe('ACTIVE');
  });
});

describe.concurrent('suspend and reinstate', () => {
  it('suspend → 200 SUSPENDED, again → 422; reinstate → 200 ACTIVE, again → 422; each with its event', async () => {
    const { license } = await licenseUnder({});
    const suspended = await action(license.id, 'suspend');
    expect(suspended.status, JSON.stringify(suspended.body)).toBe(200);
    expect(suspended.body.data.attributes).toMatchObject({ suspended: true, status: 'SUSPENDED' });
    expectError(await action(license.id, 'suspend'), 422, {
      code: 'LICENSE_ALREADY_SUSPENDED',
      source: { pointer: '/data/attributes/suspended' },
    });
    const reinstated = await action(license.id, 'reinstate');
    expect(reinstated.status).toBe(200);
    expect(reinstated.body.data.attributes).toMatchObject({ suspended: false, status: 'ACTIVE' });
    expectError(await action(license.id, 'reinstate'), 422, {
      code: 'LICENSE_NOT_SUSPENDED',
      source: { pointer: '/data/attributes/suspended' },
    });
    const [onSuspend] = await eventsOf('license.suspended', license.id);
    expect(onSuspend.data.attributes).toMatchObject({ suspended: true, status: 'SUSPENDED' });
    expect(await eventsOf('license.suspended', license.id)).toHaveLength(1);
    expect(await eventsOf('license.reinstated', license.id)).toHaveLength(1);
    // PATCH suspended keeps working.
    expect((await patch(license.id, { suspended: true })).body.data.attributes.suspended).toBe(true);
    expectCode(await action(license.id, 'suspend'), 422, 'LICENSE_ALREADY_SUSPENDED');
    expectCode(await action('00000000-0000-4000-8000-000000000000', 'suspend'), 404, 'NOT_FOUND');
  });

  it('10 concurrent suspends: one 200, nine 422; then 10 concurrent reinstates: one 200, nine 422', async () => {
    const { license } = await licenseUnder({});
    for (const [name, code] of [
      ['suspend', 'LICENSE_ALREADY_SUSPENDED'],
      ['reinstate', 'LICENSE_NOT_SUSPENDED'],
    ] as const) {
      const replies = await Promise.all(Array.from({ length: 10 }, () => action(license.id, name)));
      expect(
        replies.filter((reply) => reply.status === 200),
        name,
      ).toHaveLength(1);
      const refused = replies.filter((reply) => reply.status !== 200);
      expect(refused.map((reply) => [reply.status, reply.body.errors[0].code])).toEqual(Array(9).fill([422, code]));
    }
    expect(await eventsOf('license.suspended', license.id)).toHaveLength(1);
    expect(await eventsOf('license.reinstated', license.id)).toHaveLength(1);
  });
});

describe.concurrent('renew', () => {
  const renew = async (id: string) => {
    const before = Date.now();
    const reply = await action(id, 'renew');
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return { expiry: Date.parse(reply.body.data.attributes.expiry as string), before, after: Date.now() };
  };
  const d = 10 * DAY * 1000;

  it('FROM_EXPIRY: the expiry plus the duration, expired or not; now plus the duration without an expiry', async () => {
    const { license } = await licenseUnder({ duration: 10 * DAY });
    const expiry = Date.parse(license.attributes.expiry);
    expect((await renew(license.id)).expiry).toBe(expiry + d);
    const old = Date.now() - 3 * d;
    await patch(license.id, { expiry: new Date(old).toISOString() });
    expect((await renew(license.id)).expiry).toBe(old + d);
    await patch(license.id, { expiry: null });
    const fromNow = await renew(license.id);
    expect(fromNow.expiry).toBeGreaterThanOrEqual(fromNow.before + d);
    expect(fromNow.expiry).toBeLessThanOrEqual(fromNow.after + d);
    const [event] = await eventsOf('license.renewed', license.id);
    expect(event.data.type).toBe('licenses');
    expect(await eventsOf('license.renewed', license.id)).toHaveLength(3);
  });

  it('FROM_NOW: now plus the duration, whatever the expiry', async () => {
    const { license } = await licenseUnder(
      { duration: 10 * DAY, renewalBasis: 'FROM_NOW' },
      { expiry: new Date(Date.now() + 5 * d).toISOString() },
    );
    const renewed = await renew(license.id);
    expect(renewed.expiry).toBeGreaterThanOrEqual(renewed.before + d);
    expect(renewed.expiry).toBeLessThanOrEqual(renewed.after + d);
  });

  it('FROM_NOW_IF_EXPIRED: now plus the duration once expired, else the expiry plus the duration', async () => {
    const { license } = await licenseUnder({ duration: 10 * DAY, renewalBasis: 'FROM_NOW_IF_EXPIRED' });
    const expiry = Date.parse(license.attributes.expiry);
    expect((await renew(license.id)).expiry).toBe(expiry + d);
    await patch(license.id, { expiry: new Date(Date.now() - 3 * d).toISOString() });
    const renewed = await renew(license.id);
    expect(renewed.expiry).toBeGreaterThanOrEqual(renewed.before + d);
    expect(renewed.expiry).toBeLessThanOrEqual(renewed.after + d);
  });

  it('422 LICENSE_NOT_RENEWABLE under a policy without a duration; renewing an expired license lets it validate again', async () => {
    const { license } = await licenseUnder({});
    expectCode(await action(license.id, 'renew'), 422, 'LICENSE_NOT_RENEWABLE');
    // From an expiry two days past, one day is not enough (FROM_EXPIRY); from now it is (FROM_NOW).
    const lapsed = (await licenseUnder({ duration: DAY, expirationStrategy: 'REVOKE_ACCESS' }, { expiry: past(2 * DAY * 1000) })).license;
    expect((await validateKey(lapsed.attributes.key)).body.meta.code).toBe('EXPIRED');
    expect((await action(lapsed.id, 'renew')).status).toBe(200);
    expect((await validateKey(lapsed.attributes.key)).body.meta.code).toBe('EXPIRED');
    const fresh = await licenseUnder(
      { duration: DAY, expirationStrategy: 'REVOKE_ACCESS', renewalBasis: 'FROM_NOW' },
      { expiry: past(2 * DAY * 1000) },
    );
    expect((await action(fresh.license.id, 'renew')).status).toBe(200);
    expect((await validateKey(fresh.license.attributes.key)).body.meta.code).toBe('VALID');
  });
});

describe.concurrent('revoke', () => {
  it('204: the license goes with its machines and tokens, as a delete; license.revoked is emitted, license.deleted is not', async () => {
    const { license } = await licenseUnder({});
    const machine = await l.machine(license.id);
    const token = await l.licenseToken(license.id);
    const reply = await action(license.id, 'revoke');
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    expectCode(await l.api('GET', `/licenses/${license.id}`), 404);
    expectCode(await l.api('GET', `/machines/${machine.id}`), 404);
    expectCode(await l.api('GET', '/licenses', { token }), 401, 'TOKEN_INVALID');
    expectCode(await l.api('GET', '/licenses', { authorization: `License ${license.attributes.key}` }), 401, 'LICENSE_INVALID');
    expectCode(await action(license.id, 'revoke'), 404);
    const [revoked] = await eventsOf('license.revoked', license.id);
    expect(revoked.data).toMatchObject({ type: 'licenses', id: license.id });
    expect(await eventsOf('license.deleted', license.id)).toEqual([]);
  });
});

describe.concurrent('who may act', () => {
  it('administrators and the product: all four; the owner renews and revokes unless protected; licenses never; others do not see it', async () => {
    const owner = await newUser(account);
    const other = await newUser(account);
    const { product, license } = await licenseUnder({ duration: DAY }, {}, owner.id);
    const productToken = await l.productToken(product.id);
    const otherProduct = await l.productToken((await l.product()).id);
    const licenseToken = await l.licenseToken(license.id);
    const key = { authorization: `License ${license.attributes.key}` };
    for (const name of ['suspend', 'reinstate', 'renew']) {
      expect((await action(license.id, name, { token: productToken })).status, name).toBe(200);
      expectCode(await action(license.id, name, { token: otherProduct }), 404);
      expectCode(await action(license.id, name, { token: other.token }), 404);
      expectCode(await action(license.id, name, { token: licenseToken }), 403);
      expectCode(await action(license.id, name, key), 403);
    }
    expectCode(await action(license.id, 'suspend', { token: owner.token }), 403);
    expect((await action(license.id, 'suspend')).status).toBe(200);
    expectCode(await action(license.id, 'reinstate', { token: owner.token }), 403);
    expect((await action(license.id, 'reinstate')).status).toBe(200);
    expect((await action(license.id, 'renew', { token: owner.token })).status).toBe(200);
    expectCode(await action(license.id, 'revoke', { token: licenseToken }), 403);
    expectCode(await action(license.id, 'revoke', { token: other.token }), 404);
    expect((await action(license.id, 'revoke', { token: owner.token })).status).toBe(204);

    const guarded = (await licenseUnder({ duration: DAY, protected: true }, {}, owner.id)).license;
    const refusal = expectCode(await action(guarded.id, 'renew', { token: owner.token }), 403);
    expect(refusal.detail).toMatch(/protected/);
    expectCode(await action(guarded.id, 'revoke', { token: owner.token }), 403);
    expectCode(await action(guarded.id, 'renew', { token: productToken }), 404);
  });

  it('an environment token acts inside its environment; narrowed to reading, it is refused', async () => {
    const environment = await newEnvironment(account, 'ISOLATED');
    const token = await environmentToken(account, environment.code);
    const reader = await environmentToken(account, environment.code, ['license.read']);
    const inside = { environment: environment.code };
    const product = await l.product({}, { token, ...inside });
    const policy = await l.policy(product.id, { duration: DAY }, { token, ...inside });
    const license = await l.license(policy.id, {}, { token, ...inside });
    for (const name of ['suspend', 'reinstate', 'renew', 'revoke']) {
      expectCode(await action(license.id, name, { token: reader, ...inside }), 403);
      expect((await action(license.id, name, { token, ...inside })).status, name).toBe(name === 'revoke' ? 204 : 200);
    }
  });
});

describe.concurrent('License <key> and license tokens: refused while the license may not act', () => {
  const as = (credential: { token?: string; authorization?: string }, id: string) => l.api('GET', `/licenses/${id}`, credential);

  it('an unknown key → 401 LICENSE_INVALID', async () => {
    expectError(await l.api('GET', '/licenses', { authorization: 'License no-such-key' }), 401, { code: 'LICENSE_INVALID' });
  });

  it('suspended → 403 LICENSE_SUSPENDED for the key and its tokens; validation still answers 200 SUSPENDED; reinstated → 200', async () => {
    const { license } = await licenseUnder({});
    const credentials = [{ authorization: `License ${license.attributes.key}` }, { token: await l.licenseToken(license.id) }];
    await action(license.id, 'suspend');
    for (const credential of credentials) expectError(await as(credential, license.id), 403, { code: 'LICENSE_SUSPENDED' });
    // Activation is refused too: the license cannot act.
    expectCode(
      await l.api('POST', '/machines', {
        ...credentials[0],
        body: doc('machines', { fingerprint: 'fp-suspended' }, { license: { data: { type: 'licenses', id: license.id } } }),
      }),
      403,
      'LICENSE_SUSPENDED',
    );
    expect((await validateKey(license.attributes.key)).body.meta.code).toBe('SUSPENDED');
    const byId = await call('POST', `${account.path}/licenses/${license.id}/actions/validate`, { token: account.adminToken });
    expect([byId.status, byId.body.meta.code]).toEqual([200, 'SUSPENDED']);
    await action(license.id, 'reinstate');
    for (const credential of credentials) expect((await as(credential, license.id)).status).toBe(200);
  });

  it('owner banned → 403 LICENSE_BANNED (before SUSPENDED), validation BANNED; unbanned → 200', async () => {
    const owner = await newUser(account);
    const { license } = await licenseUnder({}, {}, owner.id);
    const credentials = [{ authorization: `License ${license.attributes.key}` }, { token: await l.licenseToken(license.id) }];
    expect((await l.api('POST', `/users/${owner.id}/actions/ban`)).status).toBe(200);
    await action(license.id, 'suspend');
    for (const credential of credentials) expectError(await as(credential, license.id), 403, { code: 'LICENSE_BANNED' });
    expect((await validateKey(license.attributes.key)).body.meta).toMatchObject({ code: 'BANNED', valid: false });
    await action(license.id, 'reinstate');
    expect((await l.api('POST', `/users/${owner.id}/actions/unban`)).status).toBe(200);
    for (const credential of credentials) expect((await as(credential, license.id)).status).toBe(200);
  });

  it('a license token whose lookup predates the owner on lookups still finds its owner banned', async () => {
    const owner = await newUser(account);
    const { license } = await licenseUnder({}, {}, owner.id);
    const token = await l.licenseToken(license.id);
    await DynamoDBDocumentClient.from(new DynamoDBClient({})).send(
      new UpdateCommand({ TableName: process.env.TABLE_NAME, Key: tokenLookupKey(digest(token)), UpdateExpression: 'REMOVE ownerId' }),
    );
    expect((await as({ token }, license.id)).status).toBe(200);
    expect((await l.api('POST', `/users/${owner.id}/actions/ban`)).status).toBe(200);
    expectError(await as({ token }, license.id), 403, { code: 'LICENSE_BANNED' });
  });

  it('expired → 403 LICENSE_EXPIRED under REVOKE_ACCESS only; the other strategies still authenticate', async () => {
    for (const strategy of ['REVOKE_ACCESS', 'RESTRICT_ACCESS', 'MAINTAIN_ACCESS', 'ALLOW_ACCESS']) {
      const { license } = await licenseUnder({ expirationStrategy: strategy }, { expiry: past() });
      const credentials = [{ authorization: `License ${license.attributes.key}` }, { token: await l.licenseToken(license.id) }];
      for (const credential of credentials) {
        const reply = await as(credential, license.id);
        if (strategy === 'REVOKE_ACCESS') expectError(reply, 403, { code: 'LICENSE_EXPIRED' });
        else expect(reply.status, strategy).toBe(200);
      }
      expect((await validateKey(license.attributes.key)).status).toBe(200);
    }
  });
});
