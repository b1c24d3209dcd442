/**
 * Second factors (docs/rules.md §13.2): adding one with the password, enabling it with a code,
 * log-ins that then need a code, removal, and codes that are never accepted twice, even by
 * requests sent at once. Codes are made by an independent TOTP implementation from the URI the
 * API shows, at the steps the API accepts (the current one and one either side), never by waiting.
 */
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, call, expectError, newUser, type TestAccount } from '../support/client.ts';
import { eventPayloads, listeningAccount } from '../support/licensing.ts';
import type { Receiver } from '../support/receiver.ts';

let account: TestAccount;
let receiver: Receiver;

beforeAll(async () => {
  ({ account, receiver } = await listeningAccount());
});

afterAll(() => receiver.close());

const PASSWORD = 'a long password';
const path = (userId: string, factorId?: string) => `${account.path}/users/${userId}/second-factors${factorId ? `/${factorId}` : ''}`;
const create = (userId: string, token: string, meta: Record<string, unknown> = { password: PASSWORD }) =>
  call('POST', path(userId), { token, body: { meta } });
const patch = (userId: string, factorId: string, token: string, enabled: boolean, otp: string) =>
  call('PATCH', path(userId, factorId), { token, body: { data: { type: 'second-factors', attributes: { enabled } }, meta: { otp } } });
const remove = (userId: string, factorId: string, token: string, otp?: string) =>
  call('DELETE', path(userId, factorId), { token, ...(otp !== undefined && { body: { meta: { otp } } }) });
const login = (email: string, otp?: string, password = PASSWORD) =>
  call('POST', `${account.path}/tokens`, { authorization: basic(email, password), ...(otp !== undefined && { body: { meta: { otp } } }) });

/**
 * Codes of a factor in the order the API accepts them: each of a later step than the last, and
 * none behind the current step (a code of the step before would fall out of the API's window if
 * the clock passed a step's end while the request is on its way): two in a row whatever the clock.
 */
function codesOf(uri: string) {
  const totp = OTPAuth.URI.parse(uri) as OTPAuth.TOTP;
  let last = Number.NEGATIVE_INFINITY;
  return {
    totp,
    next(): string {
      const current = Math.floor(Date.now() / 1000 / totp.period);
      const step = Math.max(last + 1, current);
      if (step > current + 1) throw new Error('More codes than one window holds: the test asks too many');
      last = step;
      return totp.generate({ timestamp: step * totp.period * 1000 });
    },
    /** The last code given again. */
    again: () => totp.generate({ timestamp: last * totp.period * 1000 }),
  };
}

/** A user with an enabled second factor, and the codes of it (one spent by enabling it). */
async function userWithFactor() {
  const user = await newUser(account, { password: PASSWORD });
  const created = await create(user.id, user.token);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const factor = created.body.data;
  const codes = codesOf(factor.attributes.uri);
  const enabled = await patch(user.id, factor.id, user.token, true, codes.next());
  expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
  return { user, factor, codes };
}

describe.concurrent('adding a second factor', () => {
  it('needs the password; answers a TOTP URI once, disabled; lists and reads it without the URI; one per user', async () => {
    const user = await newUser(account, { password: PASSWORD });
    const wrong = expectError(await create(user.id, user.token, { password: 'not it' }), 401, { code: 'PASSWORD_INVALID' });
    expect(wrong.source).toEqual({ pointer: '/meta/password' });
    expectError(await create(user.id, user.token, {}), 401, { code: 'PASSWORD_INVALID' });
    expect((await call('GET', path(user.id), { token: user.token })).body.data).toEqual([]);

    const created = await create(user.id, user.token);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const factor = created.body.data;
    expect(factor).toMatchObject({ type: 'second-factors', attributes: { enabled: false } });
    expect(factor.links.self).toBe(path(user.id, factor.id));
    expect(factor.relationships.user.data).toEqual({ type: 'users', id: user.id });
    const totp = OTPAuth.URI.parse(factor.attributes.uri) as OTPAuth.TOTP;
    expect(totp).toBeInstanceOf(OTPAuth.TOTP);
    expect({ algorithm: totp.algorithm, digits: totp.digits, period: totp.period, label: totp.label }).toEqual({
      algorithm: 'SHA1',
      digits: 6,
      period: 30,
      label: user.email,
    });
    expect(totp.secret.bytes.length).toBe(20);

    const read = await call('GET', path(user.id, factor.id), { token: user.token });
    expect(read.status).toBe(200);
    expect(read.body.data.attributes.uri).toBeNull();
    const listed = await call('GET', path(user.id), { token: account.adminToken });
    expect(listed.body.data.map((f: { id: string }) => f.id)).toEqual([factor.id]);
    expect(JSON.stringify(listed.body)).not.toContain(totp.secret.base32);
    const user_ = await call('GET', `${account.path}/users/${user.id}`, { token: account.adminToken });
    expect(JSON.stringify(user_.body)).not.toContain(totp.secret.base32);

    expectError(await create(user.id, user.token), 422, { code: 'SECOND_FACTOR_TAKEN' });
    expectError(await call('GET', path(user.id, crypto.randomUUID()), { token: user.token }), 404, { code: 'NOT_FOUND' });
    // Disabled, it asks nothing of a log-in yet.
    expect((await login(user.email)).status).toBe(201);
    const [event] = await eventPayloads(account, 'second-factor.created', factor.id);
    expect(event.data.attributes.uri).toBeNull();
  });

  it('of two concurrent adds, one lands and the other finds the factor taken', async () => {
    const user = await newUser(account, { password: PASSWORD });
    const replies = await Promise.all([create(user.id, user.token), create(user.id, user.token)]);
    expect(replies.map((reply) => reply.status).sort()).toEqual([201, 422]);
    expect((await call('GET', path(user.id), { token: user.token })).body.data).toHaveLength(1);
  });

  it("an administrator adds one for a user given the user's password; another user does not see them", async () => {
    const user = await newUser(account, { password: PASSWORD });
    const other = await newUser(account);
    expectError(await create(user.id, other.token), 404, { code: 'NOT_FOUND' });
    expectError(await call('GET', path(user.id), { token: other.token }), 404, { code: 'NOT_FOUND' });
    expect((await create(user.id, account.adminToken)).status).toBe(201);
  });
});

describe.concurrent('enabling it', () => {
  it('takes a current code of it (401 OTP_INVALID otherwise, nothing changes); from then on a log-in needs a code', async () => {
    const user = await newUser(account, { password: PASSWORD });
    const factor = (await create(user.id, user.token)).body.data;
    const codes = codesOf(factor.attributes.uri);
    const stale = codes.totp.generate({ timestamp: Date.now() - 10 * 60_000 });
    for (const otp of [stale, '12345', 'abcdef', '']) {
      const refused = expectError(await patch(user.id, factor.id, user.token, true, otp), 401, { code: 'OTP_INVALID' });
      expect(refused.source).toEqual({ pointer: '/meta/otp' });
    }
    expect((await login(user.email)).status).toBe(201);
    const enabled = await patch(user.id, factor.id, user.token, true, codes.next());
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
    expect(enabled.body.data.attributes).toMatchObject({ enabled: true, uri: null });
    expect(await eventPayloads(account, 'second-factor.enabled', factor.id)).toHaveLength(1);

    expect(expectError(await login(user.email), 401, { code: 'OTP_REQUIRED' }).source).toEqual({ pointer: '/meta/otp' });
    expectError(await login(user.email, '000000'), 401, { code: 'OTP_INVALID' });
    // The password is judged first: without it, nothing tells whether the user has a second factor.
    expectError(await login(user.email, undefined, 'not it'), 401, { code: 'CREDENTIALS_INVALID' });
    // The code that enabled it was spent.
    expectError(await login(user.email, codes.again()), 401, { code: 'OTP_INVALID' });
    const token = await login(user.email, codes.next());
    expect(token.status, JSON.stringify(token.body)).toBe(201);
    expect((await call('GET', `${account.path}/me`, { token: token.body.data.attributes.token })).body.data.id).toBe(user.id);
  });

  it('a code is accepted once: eight log-ins sent at once with the same code make one token', async () => {
    const { user, codes } = await userWithFactor();
    const otp = codes.next();
    const replies = await Promise.all(Array.from({ length: 8 }, () => login(user.email, otp)));
    const statuses = replies.map((reply) => reply.status);
    expect(
      statuses.filter((status) => status === 201),
      JSON.stringify(replies.map((r) => r.body)),
    ).toHaveLength(1);
    for (const reply of replies.filter((r) => r.status !== 201)) expectError(reply, 401, { code: 'OTP_INVALID' });
    // An older code is refused once a later one was accepted.
    expectError(await login(user.email, codes.totp.generate({ timestamp: Date.now() - 30_000 })), 401);
  });

  it('takes at most 10 codes a quarter of an hour, right or wrong: then 429 with Retry-After, for a right one too', async () => {
    const { user, codes } = await userWithFactor();
    // Enabling it took one.
    const wrong = await Promise.all(Array.from({ length: 9 }, () => login(user.email, '000000')));
    for (const reply of wrong) expectError(reply, 401, { code: 'OTP_INVALID' });
    const limited = await login(user.email, codes.next());
    expectError(limited, 429, { code: 'TOO_MANY_REQUESTS' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // A log-in without a code is still told that one is needed: only codes are counted here.
    expectError(await login(user.email), 401, { code: 'OTP_REQUIRED' });
  });

  it('disabling takes a code too; a disabled factor asks nothing of a log-in', async () => {
    const { user, factor, codes } = await userWithFactor();
    expectError(await patch(user.id, factor.id, user.token, false, '000000'), 401, { code: 'OTP_INVALID' });
    const disabled = await patch(user.id, factor.id, user.token, false, codes.next());
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    expect(disabled.body.data.attributes.enabled).toBe(false);
    expect((await login(user.email)).status).toBe(201);
    expect(await eventPayloads(account, 'second-factor.disabled', factor.id)).toHaveLength(1);
  });
});

describe.concurrent('deleting it', () => {
  it('an enabled one only with a current code (OTP_REQUIRED, OTP_INVALID); then log-ins need the password alone', async () => {
    const { user, factor, codes } = await userWithFactor();
    expectError(await remove(user.id, factor.id, user.token), 401, { code: 'OTP_REQUIRED' });
    expectError(await remove(user.id, factor.id, user.token, '000000'), 401, { code: 'OTP_INVALID' });
    expectError(await remove(user.id, factor.id, user.token, codes.again()), 401, { code: 'OTP_INVALID' });
    expect((await remove(user.id, factor.id, user.token, codes.next())).status).toBe(204);
    expect((await call('GET', path(user.id), { token: user.token })).body.data).toEqual([]);
    expect((await login(user.email)).status).toBe(201);
    expectError(await remove(user.id, factor.id, user.token), 404, { code: 'NOT_FOUND' });
    expect(await eventPayloads(account, 'second-factor.deleted', factor.id)).toHaveLength(1);
    // A new one may be added in its place.
    expect((await create(user.id, user.token)).status).toBe(201);
  });

  it('a disabled one without a code', async () => {
    const user = await newUser(account, { password: PASSWORD });
    const factor = (await create(user.id, user.token)).body.data;
    expect((await remove(user.id, factor.id, account.adminToken)).status).toBe(204);
  });
});

describe.concurrent('bad input', () => {
  it('is refused with 400 and changes nothing', async () => {
    const user = await newUser(account, { password: PASSWORD });
    const factor = (await create(user.id, user.token)).body.data;
    for (const body of [
      { meta: { password: 5 } },
      { data: { type: 'users' }, meta: { password: PASSWORD } },
      { meta: { password: PASSWORD, extra: true } },
    ]) {
      expectError(await call('POST', path(user.id), { token: user.token, body }), 400);
    }
    for (const body of [
      { data: { type: 'second-factors', attributes: { enabled: 'yes' } }, meta: { otp: '123456' } },
      { data: { type: 'second-factors', attributes: { enabled: true } } },
      { data: { type: 'second-factors', attributes: { enabled: true } }, meta: { otp: 123456 } },
    ]) {
      expectError(await call('PATCH', path(user.id, factor.id), { token: user.token, body }), 400);
    }
    expectError(
      await call('POST', `${account.path}/tokens`, { authorization: basic(user.email, PASSWORD), body: { meta: { otp: 1 } } }),
      400,
    );
    const read = await call('GET', path(user.id, factor.id), { token: user.token });
    expect(read.body.data.attributes.enabled).toBe(false);
  });
});
