/**
 * The holes an attacker found in authorization, each tried again as they tried it: a SHARED
 * environment's credential taking over a global admin, a narrowed token granting more than it
 * holds, a license key read from SHARED, a password set by an admin leaving old tokens working.
 * (The machine limit across environments: machine-seats.test.ts; DNS rebinding:
 * test/unit/webhook-pinning.test.ts; unstorable numbers and oversized arrays: inputs.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, call, environmentToken, expectError, newAccount, newEnvironment, newUser, type TestAccount } from '../support/client.ts';
import { localStackIdle } from '../support/idle.ts';
import { licensing } from '../support/licensing.ts';
import { ofKind, type Receiver, startReceiver } from '../support/receiver.ts';

let account: TestAccount;
let receiver: Receiver;
let shared: { id: string; code: string; token: string };

async function environment(isolationStrategy: 'SHARED' | 'ISOLATED') {
  const made = await newEnvironment(account, isolationStrategy);
  return { ...made, token: await environmentToken(account, made.code) };
}

/** POST <path> (a product's or license's tokens) inside the SHARED environment, narrowed to `permissions` when given. */
const generateToken = (token: string, path: string, permissions?: string[]) =>
  call('POST', `${account.path}${path}`, {
    token,
    environment: shared.code,
    ...(permissions ? { body: { data: { type: 'tokens', attributes: { permissions } } } } : {}),
  });

const passwordResets = (deliveries: Receiver['deliveries']) => ofKind(deliveries, 'user.password-reset');

beforeAll(async () => {
  account = await newAccount();
  receiver = await startReceiver();
  shared = await environment('SHARED');
});
afterAll(() => receiver.close());

describe('a SHARED environment cannot take over a global admin', () => {
  it('sees global users read-only, but no global token, endpoint or event, and cannot reset a global password', async () => {
    // The account's global webhook endpoint hears every password reset of the global environment.
    const endpoint = await call('POST', `${account.path}/webhook-endpoints`, {
      token: account.adminToken,
      body: {
        data: { type: 'webhook-endpoints', attributes: { url: receiver.url, subscriptions: ['user.password-reset', 'user.created'] } },
      },
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const globalUser = await newUser(account, { email: `control-${account.slug}@users.example` });
    const globalEvent = (await receiver.waitFor((all) => all.some((d) => d.json.data.attributes.event === 'user.created'))).find(
      (d) => d.json.data.attributes.event === 'user.created',
    )!.json.data.id as string;
    const sharedAdmin = await newUser(account, { role: 'admin' }, { environment: shared.code, token: account.adminToken });

    for (const token of [shared.token, sharedAdmin.token]) {
      const as = { token, environment: shared.code };
      // Global users stay readable from SHARED (read-only, docs/rules.md §5.2)...
      const users = await call('GET', `${account.path}/users?page[size]=100`, as);
      expect(users.body.data.map((u: { id: string }) => u.id)).toContain(account.adminId);
      // ...but the global environment's credentials and webhook plumbing are not there at all.
      expectError(await call('GET', `${account.path}/webhook-events/${globalEvent}`, as), 404, { code: 'NOT_FOUND' });
      const events = await call('GET', `${account.path}/webhook-events?page[size]=100`, as);
      expect(events.body.data.map((e: { id: string }) => e.id)).not.toContain(globalEvent);
      expectError(await call('GET', `${account.path}/webhook-endpoints/${endpoint.body.data.id}`, as), 404);
      expectError(await call('GET', `${account.path}/tokens/${globalUser.tokenId}`, as), 404);
      expect((await call('GET', `${account.path}/tokens?page[size]=100`, as)).body.data.map((t: { id: string }) => t.id)).not.toContain(
        globalUser.tokenId,
      );
    }

    // A reset asked from inside SHARED for the global admin hands no token to anyone, once the
    // stack is idle (the worker has handled both); one asked globally for the control user does.
    const reset = (email: string, environment?: string) =>
      call('POST', `${account.path}/passwords`, { environment, body: { meta: { email, deliver: false } } });
    expect((await reset(account.adminEmail, shared.code)).status).toBe(202);
    expect((await reset(globalUser.email)).status).toBe(202);
    const [control] = passwordResets(await receiver.waitFor((all) => passwordResets(all).length > 0));
    await localStackIdle();
    expect(passwordResets(receiver.deliveries).map((d) => JSON.parse(d.json.data.attributes.payload).data.id)).toEqual([globalUser.id]);

    // Even a genuine reset token of a global user does nothing from SHARED; globally it works.
    const token = JSON.parse(control!.json.data.attributes.payload).meta.passwordResetToken as string;
    const fulfil = (environment?: string) =>
      call('POST', `${account.path}/users/${globalUser.id}/actions/reset-password`, {
        environment,
        body: { meta: { passwordResetToken: token, newPassword: 'taken over from shared' } },
      });
    expectError(await fulfil(shared.code), 404);
    expect((await fulfil()).status).toBe(200);
    expect(
      (await call('POST', `${account.path}/tokens`, { authorization: basic(globalUser.email, 'taken over from shared') })).status,
    ).toBe(201);
  });

  it('changes no global user: a ban from SHARED is refused (403)', async () => {
    const user = await newUser(account);
    expectError(await call('POST', `${account.path}/users/${user.id}/actions/ban`, { token: shared.token, environment: shared.code }), 403);
  });
});

describe('no bearer grants more than it holds', () => {
  it('a token narrowed to user.create cannot make an admin, nor any user whose role carries more', async () => {
    const narrowed = await environmentToken(account, shared.code, ['user.create']);
    const create = (role: string) =>
      call('POST', `${account.path}/users`, {
        token: narrowed,
        environment: shared.code,
        body: {
          data: {
            type: 'users',
            attributes: { email: `${role}-${Math.random().toString(36).slice(2)}@x.example`, password: 'a long password', role },
          },
        },
      });
    expectError(await create('admin'), 403, { detail: /permissions this credential does not hold/ });
    expectError(await create('user'), 403);
    // Nothing was made: the full environment token lists no such user.
    const users = await call('GET', `${account.path}/users?page[size]=100`, { token: shared.token, environment: shared.code });
    expect(users.body.data.filter((u: any) => /^(admin|user)-/.test(u.attributes.email))).toEqual([]);
    // The environment's full token holds an admin's permissions in it: it may.
    const made = await call('POST', `${account.path}/users`, {
      token: shared.token,
      environment: shared.code,
      body: { data: { type: 'users', attributes: { email: `made-${account.slug}@x.example`, role: 'admin' } } },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
  });

  it('nor give an existing user a role, a password or an e-mail it could not give at creation', async () => {
    const narrowed = await environmentToken(account, shared.code, ['user.read', 'user.update']);
    const admin = await newUser(account, { role: 'admin' }, { environment: shared.code, token: shared.token });
    const user = await newUser(account, {}, { environment: shared.code, token: shared.token });
    const patch = (id: string, attributes: Record<string, unknown>) =>
      call('PATCH', `${account.path}/users/${id}`, {
        token: narrowed,
        environment: shared.code,
        body: { data: { type: 'users', attributes } },
      });
    expectError(await patch(user.id, { role: 'admin' }), 403);
    expectError(await patch(admin.id, { password: 'the attacker knows this' }), 403);
    expectError(await patch(admin.id, { email: 'attacker@x.example' }), 403);
    expect((await patch(admin.id, { firstName: 'Renamed' })).status).toBe(200);
    expect(
      (await call('POST', `${account.path}/tokens`, { authorization: basic(admin.email, admin.password), environment: shared.code }))
        .status,
    ).toBe(201);
  });

  it('a narrowed token mints no license token carrying permissions it lacks', async () => {
    const l = licensing(account);
    const { license } = await l.graph({ token: shared.token, environment: shared.code });
    const narrowed = await environmentToken(account, shared.code, ['license.read', 'license.tokens.generate']);
    const mint = (permissions?: string[]) => generateToken(narrowed, `/licenses/${license.id}/tokens`, permissions);
    expectError(await mint(), 403);
    expectError(await mint(['machine.create']), 403);
    expect((await mint(['license.read'])).status).toBe(200);
  });

  it('nor a product token carrying permissions it lacks', async () => {
    const product = await licensing(account).product({}, { token: shared.token, environment: shared.code });
    const narrowed = await environmentToken(account, shared.code, ['product.read', 'product.tokens.generate']);
    const mint = (permissions?: string[]) => generateToken(narrowed, `/products/${product.id}/tokens`, permissions);
    expectError(await mint(), 403);
    expectError(await mint(['license.create']), 403);
    expect((await mint(['product.read'])).status).toBe(200);
  });
});

describe('what hears or holds secrets takes a credential holding everything they give', () => {
  it('a narrowed token points no webhook endpoint anywhere, and reads no event', async () => {
    const creator = await environmentToken(account, shared.code, ['webhook-endpoint.create']);
    const create = await call('POST', `${account.path}/webhook-endpoints`, {
      token: creator,
      environment: shared.code,
      body: { data: { type: 'webhook-endpoints', attributes: { url: receiver.url, subscriptions: ['user.password-reset'] } } },
    });
    expectError(create, 403);
    const endpoint = await call('POST', `${account.path}/webhook-endpoints`, {
      token: shared.token,
      environment: shared.code,
      body: { data: { type: 'webhook-endpoints', attributes: { url: receiver.url, subscriptions: ['license.created'] } } },
    });
    expect(endpoint.status).toBe(201);
    const updater = await environmentToken(account, shared.code, ['webhook-endpoint.read', 'webhook-endpoint.update']);
    expectError(
      await call('PATCH', `${account.path}/webhook-endpoints/${endpoint.body.data.id}`, {
        token: updater,
        environment: shared.code,
        body: { data: { type: 'webhook-endpoints', attributes: { subscriptions: ['*'] } } },
      }),
      403,
    );
    expect(
      (await call('GET', `${account.path}/webhook-endpoints/${endpoint.body.data.id}`, { token: updater, environment: shared.code }))
        .status,
    ).toBe(200);
    // Events carry license keys: a token that may not see a key may not read them.
    const l = licensing(account);
    await l.graph({ token: shared.token, environment: shared.code });
    const reader = await environmentToken(account, shared.code, ['webhook-event.read', 'license.read']);
    expectError(
      await call('GET', `${account.path}/webhook-events?events[]=license.created`, { token: reader, environment: shared.code }),
      403,
    );
    const events = await call('GET', `${account.path}/webhook-events?events[]=license.created`, {
      token: shared.token,
      environment: shared.code,
    });
    expect(events.body.data.length).toBeGreaterThan(0);
    expectError(
      await call('GET', `${account.path}/webhook-events/${events.body.data[0].id}`, { token: reader, environment: shared.code }),
      403,
    );
    // Nor has a retry delivered again to the endpoint the event was born with.
    const retrier = await environmentToken(account, shared.code, ['webhook-event.read', 'webhook-event.retry']);
    expectError(
      await call('POST', `${account.path}/webhook-events/${events.body.data[0].id}/actions/retry`, {
        token: retrier,
        environment: shared.code,
      }),
      403,
    );
  });

  it('a narrowed license token does not see its own key, which would give it all a license may do', async () => {
    const l = licensing(account);
    const { license } = await l.graph({ token: shared.token, environment: shared.code });
    const mint = async (permissions?: string[]) => {
      const reply = await generateToken(shared.token, `/licenses/${license.id}/tokens`, permissions);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body.data.attributes.token as string;
    };
    const read = async (token: string) =>
      (await call('GET', `${account.path}/licenses/${license.id}`, { token, environment: shared.code })).body.data.attributes.key;
    expect(await read(await mint(['license.read']))).toBeNull();
    expect(await read(await mint())).toBe(license.attributes.key);
    // Entitled to change the license, yet narrowed short of what the key gives: no key either.
    const updater = await environmentToken(account, shared.code, ['license.read', 'license.update']);
    expect(await read(updater)).toBeNull();
    const listed = await call('GET', `${account.path}/licenses?page[size]=100`, { token: updater, environment: shared.code });
    expect(listed.body.data.find((d: { id: string }) => d.id === license.id).attributes.key).toBeNull();
  });
});

describe('a license key is a credential', () => {
  it('is shown to who may change the license in its own environment, the license and its owner; null to other readers', async () => {
    const l = licensing(account);
    const owner = await newUser(account);
    const { license } = await l.graph({ owner: owner.id });
    const key = license.attributes.key as string;
    const read = async (options: Parameters<typeof call>[2]) => {
      const reply = await call('GET', `${account.path}/licenses/${license.id}`, options);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body.data.attributes.key as string | null;
    };
    expect(await read({ token: account.adminToken })).toBe(key);
    expect(await read({ authorization: `License ${key}` })).toBe(key);
    expect(await read({ token: owner.token })).toBe(key);
    // From SHARED the global license is readable, not changeable: no key, in the record nor the list.
    expect(await read({ token: shared.token, environment: shared.code })).toBeNull();
    expect(await read({ token: account.adminToken, environment: shared.code })).toBeNull();
    const listed = await call('GET', `${account.path}/licenses?page[size]=100`, { token: shared.token, environment: shared.code });
    expect(listed.body.data.find((d: any) => d.id === license.id).attributes.key).toBeNull();
    expect(JSON.stringify(listed.body)).not.toContain(key);
    // A reader without license.update sees no key either.
    const reader = await environmentToken(account, shared.code, ['license.read']);
    const own = await l.graph({ token: shared.token, environment: shared.code });
    expect(
      (await call('GET', `${account.path}/licenses/${own.license.id}`, { token: reader, environment: shared.code })).body.data.attributes
        .key,
    ).toBeNull();
    expect(
      (await call('GET', `${account.path}/licenses/${own.license.id}`, { token: shared.token, environment: shared.code })).body.data
        .attributes.key,
    ).toBe(own.license.attributes.key);
  });

  it('used without the environment header, a key seen from SHARED could not change the global license: it is never seen', async () => {
    const l = licensing(account);
    const { license, machine } = await l.graph();
    const seen = await call('GET', `${account.path}/machines/${machine.id}/license`, { token: shared.token, environment: shared.code });
    expect(seen.status).toBe(200);
    expect(seen.body.data.attributes.key).toBeNull();
    expect(JSON.stringify(seen.body)).not.toContain(license.attributes.key);
  });
});

describe("any password change revokes the user's tokens", () => {
  it('a change refused (its e-mail taken) revokes nothing', async () => {
    const user = await newUser(account);
    const taken = await newUser(account);
    expectError(
      await call('PATCH', `${account.path}/users/${user.id}`, {
        token: account.adminToken,
        body: { data: { type: 'users', attributes: { password: 'never applied', email: taken.email } } },
      }),
      422,
      { code: 'EMAIL_TAKEN' },
    );
    expect((await call('GET', `${account.path}/users/${user.id}`, { token: user.token })).status).toBe(200);
    expect((await call('POST', `${account.path}/tokens`, { authorization: basic(user.email, user.password) })).status).toBe(201);
  });

  it('an admin setting a password with PATCH ends every token the user had', async () => {
    const user = await newUser(account);
    expect((await call('GET', `${account.path}/users/${user.id}`, { token: user.token })).status).toBe(200);
    const patched = await call('PATCH', `${account.path}/users/${user.id}`, {
      token: account.adminToken,
      body: { data: { type: 'users', attributes: { password: 'set by the admin' } } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expectError(await call('GET', `${account.path}/users/${user.id}`, { token: user.token }), 401, { code: 'TOKEN_INVALID' });
    expect((await call('POST', `${account.path}/tokens`, { authorization: basic(user.email, 'set by the admin') })).status).toBe(201);
    // A reset asked for before the change no longer works after it.
    const other = await newUser(account);
    const endpoint = await call('POST', `${account.path}/webhook-endpoints`, {
      token: account.adminToken,
      body: { data: { type: 'webhook-endpoints', attributes: { url: receiver.url, subscriptions: ['user.password-reset'] } } },
    });
    expect(endpoint.status).toBe(201);
    expect((await call('POST', `${account.path}/passwords`, { body: { meta: { email: other.email, deliver: false } } })).status).toBe(202);
    const delivered = await receiver.waitFor((all) =>
      passwordResets(all).some((d) => JSON.parse(d.json.data.attributes.payload).data.id === other.id),
    );
    const resetToken = JSON.parse(
      passwordResets(delivered).find((d) => JSON.parse(d.json.data.attributes.payload).data.id === other.id)!.json.data.attributes.payload,
    ).meta.passwordResetToken as string;
    const changed = await call('PATCH', `${account.path}/users/${other.id}`, {
      token: account.adminToken,
      body: { data: { type: 'users', attributes: { email: `moved-${account.slug}@x.example`, password: 'changed by the admin' } } },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expectError(
      await call('POST', `${account.path}/users/${other.id}/actions/reset-password`, {
        body: { meta: { passwordResetToken: resetToken, newPassword: 'taken back by the old mailbox' } },
      }),
      404,
    );
    // A change of name alone leaves tokens as they are.
    const again = await newUser(account);
    await call('PATCH', `${account.path}/users/${again.id}`, {
      token: account.adminToken,
      body: { data: { type: 'users', attributes: { firstName: 'New' } } },
    });
    expect((await call('GET', `${account.path}/users/${again.id}`, { token: again.token })).status).toBe(200);
  });
});
