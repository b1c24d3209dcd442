/**
 * Check-ins (docs/rules.md §17.2, §18.8): a policy's check-in period and its rules, a license's
 * `lastCheckIn` and `nextCheckIn`, the check-in action (who may, its event, its 422), and
 * validation's OVERDUE in Keygen's place. Time is moved by writing `lastCheckIn` in the past, as an
 * administrator may, never by waiting.
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

const DAILY = { requireCheckIn: true, checkInInterval: 'day', checkInIntervalCount: 1 };
const DAY_MS = 86_400_000;

async function licenseUnder(policy: Record<string, unknown>, license: Record<string, unknown> = {}, owner?: string) {
  const product = await l.product();
  const made = await l.policy(product.id, policy);
  return { product, policy: made, license: await l.license(made.id, license, { owner }) };
}

const checkIn = (id: string, options: { token?: string; authorization?: string } = {}) =>
  l.api('POST', `/licenses/${encodeURIComponent(id)}/actions/check-in`, options);
const patch = (id: string, attributes: Record<string, unknown>) => l.api('PATCH', `/licenses/${id}`, { body: doc('licenses', attributes) });
const validateKey = (key: string, scope?: Record<string, unknown>) =>
  call('POST', `${account.path}/licenses/actions/validate-key`, { body: { meta: { key, ...(scope ? { scope } : {}) } } });
const codeOf = async (key: string, scope?: Record<string, unknown>) => {
  const reply = await validateKey(key, scope);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return [reply.body.meta.code, reply.body.meta.valid];
};

describe.concurrent("a policy's check-in period", () => {
  it('defaults to none; every interval with a count from 1 to 365; Keygen-like 422s for what does not hold together', async () => {
    const product = await l.product();
    const plain = await l.policy(product.id);
    expect(plain.attributes).toMatchObject({ requireCheckIn: false, checkInInterval: null, checkInIntervalCount: null });
    for (const checkInInterval of ['day', 'week', 'month', 'year']) {
      for (const checkInIntervalCount of [1, 365]) {
        const made = await l.policy(product.id, { requireCheckIn: true, checkInInterval, checkInIntervalCount });
        expect(made.attributes).toMatchObject({ requireCheckIn: true, checkInInterval, checkInIntervalCount });
      }
    }
    const policy = (name: string, attributes: Record<string, unknown>) =>
      l.api('POST', '/policies', {
        body: doc('policies', { name, ...attributes }, { product: { data: { type: 'products', id: product.id } } }),
      });
    for (const [attributes, code] of [
      [{ requireCheckIn: true }, 'CHECK_IN_INTERVAL_NOT_ALLOWED'],
      [{ requireCheckIn: true, checkInInterval: 'day' }, 'CHECK_IN_INTERVAL_COUNT_INVALID'],
      [{ requireCheckIn: true, checkInInterval: 'hour', checkInIntervalCount: 1 }, 'CHECK_IN_INTERVAL_NOT_ALLOWED'],
      [{ ...DAILY, checkInIntervalCount: 0 }, 'CHECK_IN_INTERVAL_COUNT_INVALID'],
      [{ ...DAILY, checkInIntervalCount: 366 }, 'CHECK_IN_INTERVAL_COUNT_INVALID'],
    ] as const) {
      const error = expectCode(await policy('Refused', attributes), 422, code);
      expect(error.source.pointer).toMatch(/^\/data\/attributes\/checkInInterval(Count)?$/);
    }
    // An update is judged with what the policy already holds.
    const daily = await l.policy(product.id, DAILY);
    const cleared = await l.api('PATCH', `/policies/${daily.id}`, { body: doc('policies', { checkInInterval: null }) });
    expectCode(cleared, 422, 'CHECK_IN_INTERVAL_NOT_ALLOWED');
    const off = await l.api('PATCH', `/policies/${daily.id}`, { body: doc('policies', { requireCheckIn: false, checkInInterval: null }) });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.data.attributes).toMatchObject({ requireCheckIn: false, checkInInterval: null, checkInIntervalCount: 1 });
  });
});

describe.concurrent("a license's check-ins", () => {
  it('a license made under a policy that requires them has checked in when made; its next check-in is a period on', async () => {
    const { license } = await licenseUnder({ requireCheckIn: true, checkInInterval: 'week', checkInIntervalCount: 2 });
    const { lastCheckIn, nextCheckIn, requireCheckIn, created } = license.attributes;
    expect(requireCheckIn).toBe(true);
    expect(lastCheckIn).toBe(created);
    expect(Date.parse(nextCheckIn) - Date.parse(lastCheckIn)).toBe(14 * DAY_MS);
    const none = (await licenseUnder({})).license.attributes;
    expect(none).toMatchObject({ requireCheckIn: false, lastCheckIn: null, nextCheckIn: null });
  });

  it('months and years are calendar ones: 31 January checks in again by 29 February in a leap year', async () => {
    const { license, policy } = await licenseUnder({ requireCheckIn: true, checkInInterval: 'month', checkInIntervalCount: 1 });
    const set = await patch(license.id, { lastCheckIn: '2024-01-31T10:00:00+01:00' });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data.attributes).toMatchObject({ lastCheckIn: '2024-01-31T09:00:00.000Z', nextCheckIn: '2024-02-29T09:00:00.000Z' });
    await l.api('PATCH', `/policies/${policy.id}`, { body: doc('policies', { checkInInterval: 'year', checkInIntervalCount: 1 }) });
    const leap = await patch(license.id, { lastCheckIn: '2024-02-29T00:00:00Z' });
    expect(leap.body.data.attributes.nextCheckIn).toBe('2025-02-28T00:00:00.000Z');
  });

  it('checking in moves the next check-in on, by id or key, with its event; without a period to keep, 422 CHECK_IN_NOT_REQUIRED', async () => {
    const { license } = await licenseUnder(DAILY, { lastCheckIn: new Date(Date.now() - 3 * DAY_MS).toISOString() });
    const before = Date.now();
    const reply = await checkIn(license.attributes.key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const { lastCheckIn, nextCheckIn } = reply.body.data.attributes;
    expect(Date.parse(lastCheckIn)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(nextCheckIn) - Date.parse(lastCheckIn)).toBe(DAY_MS);
    expect((await l.api('GET', `/licenses/${license.id}`)).body.data.attributes.lastCheckIn).toBe(lastCheckIn);
    const events = await l.api('GET', '/webhook-events?events[]=license.checked-in&page[size]=100');
    const mine = (events.body.data as any[]).map((event) => JSON.parse(event.attributes.payload)).filter((p) => p.data.id === license.id);
    expect(mine.map((payload) => payload.data.attributes.lastCheckIn)).toEqual([lastCheckIn]);

    const free = (await licenseUnder({})).license;
    const refused = expectCode(await checkIn(free.id), 422, 'CHECK_IN_NOT_REQUIRED');
    expect(refused.detail).toBe('cannot be checked in because the policy does not require it');
    expect((await l.api('GET', `/licenses/${free.id}`)).body.data.attributes.lastCheckIn).toBeNull();
  });

  it('lastCheckIn is an ISO time not in the future (422 LAST_CHECK_IN_INVALID); null clears it', async () => {
    const { license } = await licenseUnder(DAILY);
    for (const lastCheckIn of ['yesterday', new Date(Date.now() + 60_000).toISOString()]) {
      expectCode(await patch(license.id, { lastCheckIn }), 422, 'LAST_CHECK_IN_INVALID');
    }
    const cleared = await patch(license.id, { lastCheckIn: null });
    expect(cleared.body.data.attributes).toMatchObject({ lastCheckIn: null, nextCheckIn: null });
    // A license that never checked in is not overdue, as in Keygen.
    expect(await codeOf(license.attributes.key)).toEqual(['VALID', true]);
  });
});

describe.concurrent('OVERDUE', () => {
  it('a license past its next check-in validates OVERDUE, in Keygen place: after the standing, before every scope; a check-in ends it', async () => {
    const { license } = await licenseUnder(DAILY);
    const { key } = license.attributes;
    expect(await codeOf(key)).toEqual(['VALID', true]);
    expect((await patch(license.id, { lastCheckIn: new Date(Date.now() - DAY_MS - 60_000).toISOString() })).status).toBe(200);
    expect(await codeOf(key)).toEqual(['OVERDUE', false]);
    // Before the scopes: a fingerprint no machine holds would be NO_MACHINE.
    expect(await codeOf(key, { fingerprint: 'none' })).toEqual(['OVERDUE', false]);
    const byId = await l.api('POST', `/licenses/${license.id}/actions/validate`);
    expect(byId.body.meta).toMatchObject({ code: 'OVERDUE', valid: false, detail: 'is overdue for check in' });
    // After the standing.
    expect((await l.api('POST', `/licenses/${license.id}/actions/suspend`)).status).toBe(200);
    expect(await codeOf(key)).toEqual(['SUSPENDED', false]);
    expect((await l.api('POST', `/licenses/${license.id}/actions/reinstate`)).status).toBe(200);
    expect((await checkIn(license.id)).status).toBe(200);
    expect(await codeOf(key)).toEqual(['VALID', true]);
  });

  it('under REVOKE_ACCESS an expired license is EXPIRED first; under the other strategies OVERDUE comes first', async () => {
    const past = new Date(Date.now() - 2 * DAY_MS).toISOString();
    const revoked = await licenseUnder({ ...DAILY, expirationStrategy: 'REVOKE_ACCESS' }, { expiry: past, lastCheckIn: past });
    expect(await codeOf(revoked.license.attributes.key)).toEqual(['EXPIRED', false]);
    const kept = await licenseUnder({ ...DAILY, expirationStrategy: 'MAINTAIN_ACCESS' }, { expiry: past, lastCheckIn: past });
    expect(await codeOf(kept.license.attributes.key)).toEqual(['OVERDUE', false]);
  });
});

describe.concurrent('who may check a license in', () => {
  it('Keygen: administrators, the product, the license itself, its owner unless protected; others do not see it', async () => {
    const owner = await newUser(account);
    const other = await newUser(account);
    const { product, license } = await licenseUnder(DAILY, {}, owner.id);
    const productToken = await l.productToken(product.id);
    for (const credential of [
      { token: productToken },
      { token: await l.licenseToken(license.id) },
      { authorization: `License ${license.attributes.key}` },
      { token: owner.token },
    ]) {
      expect((await checkIn(license.id, credential)).status).toBe(200);
    }
    expectCode(await checkIn(license.id, { token: other.token }), 404);
    expectCode(await checkIn(license.id, { token: await l.productToken((await l.product()).id) }), 404);
    const guarded = (await licenseUnder({ ...DAILY, protected: true }, {}, owner.id)).license;
    const refusal = expectCode(await checkIn(guarded.id, { token: owner.token }), 403);
    expect(refusal.detail).toMatch(/protected/);
    expect((await checkIn(guarded.id, { authorization: `License ${guarded.attributes.key}` })).status).toBe(200);
  });
});
