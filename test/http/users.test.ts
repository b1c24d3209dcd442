import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { basic, call, expectError, newAccount, newUser, onlyError, type TestAccount, userBody } from '../support/client.ts';

let account: TestAccount;
beforeAll(async () => {
  account = await newAccount();
});

describe('POST /users', () => {
  it('creates a user and shows the documented attributes and relationships', async () => {
    const reply = await call('POST', `${account.path}/users`, {
      token: account.adminToken,
      body: userBody({ email: 'Jane@Example.com', firstName: 'Jane', lastName: 'Doe', metadata: { tier: 'gold' } }),
    });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('content-type')).toBe('application/vnd.api+json');
    const user = reply.body.data;
    expect(user.type).toBe('users');
    expect(user.attributes).toMatchObject({
      fullName: 'Jane Doe',
      firstName: 'Jane',
      lastName: 'Doe',
      email: 'Jane@Example.com',
      status: 'ACTIVE',
      role: 'user',
      metadata: { tier: 'gold' },
    });
    expect(user.attributes).not.toHaveProperty('password');
    expect(user.attributes).not.toHaveProperty('passwordHash');
    expect(user.links.self).toBe(`${account.path}/users/${user.id}`);
    expect(user.relationships.account).toEqual({ links: { related: account.path }, data: { type: 'accounts', id: account.id } });
    for (const name of ['products', 'licenses', 'machines', 'tokens']) {
      expect(user.relationships[name].links.related).toBe(`${account.path}/users/${user.id}/${name}`);
    }
  });

  it('refuses an e-mail already taken, compared case-insensitively', async () => {
    await newUser(account, { email: 'taken@example.com' });
    const reply = await call('POST', `${account.path}/users`, {
      token: account.adminToken,
      body: userBody({ email: 'TAKEN@example.COM' }),
    });
    expect(reply.status).toBe(422);
    expect(onlyError(reply)).toMatchObject({ code: 'EMAIL_TAKEN', source: { pointer: '/data/attributes/email' } });
  });

  it('lets exactly one of two concurrent creations with one e-mail win', async () => {
    const body = userBody({ email: 'race@example.com' });
    const replies = await Promise.all(
      Array.from({ length: 8 }, () => call('POST', `${account.path}/users`, { token: account.adminToken, body })),
    );
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 422).every((r) => onlyError(r).code === 'EMAIL_TAKEN')).toBe(true);
    expect(replies.filter((r) => r.status === 422)).toHaveLength(7);
  });

  it('creates a managed user (no password) who cannot log in', async () => {
    const created = await call('POST', `${account.path}/users`, {
      token: account.adminToken,
      body: userBody({ email: 'managed@example.com' }),
    });
    expect(created.status).toBe(201);
    const login = await call('POST', `${account.path}/tokens`, { authorization: basic('managed@example.com', '') });
    expect(login.status).toBe(401);
  });
});

// ---------------------------------------------------------------------------------------------
// Retrieving, changing, deleting and banning users. Logging in costs a password hash on each
// side, so users that only need to exist are made without a password (`newTarget`), and two
// logged-in users are shared: `reader` is never changed; `self` only changes its own names.

let reader: Awaited<ReturnType<typeof newUser>>;
let self: Awaited<ReturnType<typeof newUser>>;
beforeAll(async () => {
  [reader, self] = await Promise.all([newUser(account), newUser(account)]);
});

/** An update body: {data: {type, attributes}} (docs/rules.md §1.2). */
const patchBody = (attributes: Record<string, unknown>) => ({ data: { type: 'users', attributes } });
const uniqueEmail = (label: string) => `${label}-${randomUUID().slice(0, 8)}@users.example`;
const getUser = (id: string, token = account.adminToken) => call('GET', `${account.path}/users/${id}`, { token });
const patchUser = (id: string, attributes: Record<string, unknown>, token = account.adminToken) =>
  call('PATCH', `${account.path}/users/${id}`, { token, body: patchBody(attributes) });
const login = (email: string, password: string) => call('POST', `${account.path}/tokens`, { authorization: basic(email, password) });
const usersCount = async () => {
  const reply = await call('GET', `${account.path}/users`, { token: account.adminToken });
  expect(reply.status).toBe(200);
  return reply.body.links.meta.count as number;
};

/** A user made by the admin that does not log in (no password unless given). */
async function newTarget(attributes: Record<string, unknown> = {}) {
  const email = uniqueEmail('target');
  const reply = await call('POST', `${account.path}/users`, {
    token: account.adminToken,
    body: userBody({ email, firstName: 'Test', lastName: 'User', ...attributes }),
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return { id: reply.body.data.id as string, email: reply.body.data.attributes.email as string, user: reply.body.data };
}

describe.concurrent('GET /users/{id}', () => {
  it('shows any user of the account to an admin', async () => {
    const jane = await newTarget({ firstName: 'Jane', lastName: 'Roe' });
    const reply = await getUser(jane.id);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({
      id: jane.id,
      type: 'users',
      attributes: { email: jane.email, firstName: 'Jane', lastName: 'Roe', fullName: 'Jane Roe' },
    });
    expect(reply.body.data.links.self).toBe(`${account.path}/users/${jane.id}`);
  });

  it('shows a user to themselves', async () => {
    const reply = await getUser(reader.id, reader.token);
    expect(reply.status).toBe(200);
    expect(reply.body.data.id).toBe(reader.id);
  });

  it('hides another user, admins included, from a user bearer with 404 NOT_FOUND', async () => {
    const john = await newTarget();
    expectError(await getUser(john.id, reader.token), 404, { code: 'NOT_FOUND' });
    expectError(await getUser(account.adminId, reader.token), 404, { code: 'NOT_FOUND' });
  });

  it('answers 404 NOT_FOUND naming the id for an unknown user', async () => {
    const id = randomUUID();
    const error = expectError(await getUser(id), 404, { code: 'NOT_FOUND' });
    expect(error.detail).toContain(id);
  });
});

describe.concurrent('PATCH /users/{id}', () => {
  it('lets an admin change e-mail, names, role and metadata', async () => {
    const jane = await newTarget({ metadata: { a: 1 }, password: 'jane password' });
    const email = uniqueEmail('renamed');
    const reply = await patchUser(jane.id, { email, firstName: 'Janet', lastName: 'Smith', role: 'admin', metadata: { plan: 'pro' } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data.attributes).toMatchObject({
      email,
      firstName: 'Janet',
      lastName: 'Smith',
      fullName: 'Janet Smith',
      role: 'admin',
      metadata: { plan: 'pro' },
    });
    const read = await getUser(jane.id);
    expect(read.body.data.attributes).toMatchObject({
      email,
      firstName: 'Janet',
      lastName: 'Smith',
      role: 'admin',
      metadata: { plan: 'pro' },
    });
    // The new e-mail logs in, and the promoted user now gets an admin token.
    const token = await login(email, 'jane password');
    expect(token.status).toBe(201);
    expect(token.body.data.attributes.kind).toBe('admin-token');
    expect(token.body.data.attributes.token).toMatch(/^admin-[0-9a-f]{64}$/);
    // The old e-mail is free again.
    expect((await call('POST', `${account.path}/users`, { token: account.adminToken, body: userBody({ email: jane.email }) })).status).toBe(
      201,
    );
  });

  it('lets an admin set a password on a managed user, who can then log in', async () => {
    const managed = await newTarget();
    const patched = await patchUser(managed.id, { password: 'temporary password' });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data.attributes).not.toHaveProperty('password');
    expect(patched.body.data.attributes).not.toHaveProperty('passwordHash');
    const token = await login(managed.email, 'temporary password');
    expect(token.status).toBe(201);
    expect(token.body.data.attributes.kind).toBe('user-token');
    expect((await getUser(managed.id, token.body.data.attributes.token)).status).toBe(200);
  });

  it('lets an admin change a password: the old one stops working', async () => {
    const jane = await newTarget({ password: 'the old password' });
    expect((await patchUser(jane.id, { password: 'a brand new password' })).status).toBe(200);
    expect((await login(jane.email, 'the old password')).status).toBe(401);
    expect((await login(jane.email, 'a brand new password')).status).toBe(201);
  });

  it('lets a user change their own first and last name', async () => {
    const reply = await patchUser(self.id, { firstName: 'Self', lastName: 'Made' }, self.token);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data.attributes).toMatchObject({ firstName: 'Self', lastName: 'Made', fullName: 'Self Made' });
  });

  it('refuses with 403 a user changing their own e-mail, and changes nothing', async () => {
    expectError(await patchUser(self.id, { email: uniqueEmail('mine') }, self.token), 403, { code: undefined });
    expect((await getUser(self.id)).body.data.attributes.email).toBe(self.email);
  });

  it('refuses with 403 a user promoting themselves to admin', async () => {
    expectError(await patchUser(self.id, { role: 'admin' }, self.token), 403, { code: undefined });
    expect((await getUser(self.id)).body.data.attributes.role).toBe('user');
  });

  it('hides another user from a user bearer on PATCH with 404', async () => {
    const john = await newTarget();
    expectError(await patchUser(john.id, { firstName: 'Hacked' }, reader.token), 404, { code: 'NOT_FOUND' });
    expect((await getUser(john.id)).body.data.attributes.firstName).toBe('Test');
  });

  it('replaces metadata as a whole object', async () => {
    const jane = await newTarget({ metadata: { a: 1, b: 2 } });
    const reply = await patchUser(jane.id, { metadata: { c: 3 } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data.attributes.metadata).toEqual({ c: 3 });
    expect((await getUser(jane.id)).body.data.attributes.metadata).toEqual({ c: 3 });
  });

  it('leaves attributes that are not sent unchanged', async () => {
    const jane = await newTarget({ firstName: 'Keep', lastName: 'Me', metadata: { k: 'v' } });
    const reply = await patchUser(jane.id, { lastName: 'Changed' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data.attributes).toMatchObject({
      email: jane.email,
      firstName: 'Keep',
      lastName: 'Changed',
      metadata: { k: 'v' },
      role: 'user',
    });
  });

  it('accepts a JSON:API update whose data.id is the id in the path', async () => {
    const jane = await newTarget();
    const reply = await call('PATCH', `${account.path}/users/${jane.id}`, {
      token: account.adminToken,
      body: { data: { type: 'users', id: jane.id, attributes: { firstName: 'Identified' } } },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data.attributes.firstName).toBe('Identified');
  });

  it('refuses an update whose data.id is not the id in the path, and changes nothing', async () => {
    const [jane, john] = await Promise.all([newTarget(), newTarget()]);
    const reply = await call('PATCH', `${account.path}/users/${jane.id}`, {
      token: account.adminToken,
      body: { data: { type: 'users', id: john.id, attributes: { firstName: 'Mixed' } } },
    });
    // An update's data.id other than the path's is 409 ID_MISMATCH (docs/rules.md §1.2); a 400 would refuse it too.
    expect([400, 409], JSON.stringify(reply.body)).toContain(reply.status);
    expectError(reply, reply.status, { source: { pointer: '/data/id' } });
    expect((await getUser(jane.id)).body.data.attributes.firstName).toBe('Test');
    expect((await getUser(john.id)).body.data.attributes.firstName).toBe('Test');
  });
});

describe.concurrent('DELETE /users/{id}', () => {
  it('deletes a user: 204 with an empty body, then 404', async () => {
    const jane = await newTarget();
    const reply = await call('DELETE', `${account.path}/users/${jane.id}`, { token: account.adminToken });
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    expectError(await getUser(jane.id), 404, { code: 'NOT_FOUND' });
    expectError(await call('DELETE', `${account.path}/users/${jane.id}`, { token: account.adminToken }), 404, { code: 'NOT_FOUND' });
  });

  it("revokes the deleted user's tokens at once (401 TOKEN_INVALID)", async () => {
    const jane = await newUser(account);
    expect((await getUser(jane.id, jane.token)).status).toBe(200);
    expect((await call('DELETE', `${account.path}/users/${jane.id}`, { token: account.adminToken })).status).toBe(204);
    expectError(await getUser(jane.id, jane.token), 401, { code: 'TOKEN_INVALID' });
    expectError(await call('GET', `${account.path}/tokens`, { token: jane.token }), 401, { code: 'TOKEN_INVALID' });
    expectError(await call('GET', `${account.path}/tokens/${jane.tokenId}`, { token: account.adminToken }), 404, { code: 'NOT_FOUND' });
  });

  it("frees the deleted user's e-mail for a new user", async () => {
    const jane = await newTarget();
    expect((await call('DELETE', `${account.path}/users/${jane.id}`, { token: account.adminToken })).status).toBe(204);
    const again = await call('POST', `${account.path}/users`, {
      token: account.adminToken,
      body: userBody({ email: jane.email.toUpperCase(), password: 'another password' }),
    });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(again.body.data.id).not.toBe(jane.id);
    expect((await login(jane.email, 'another password')).status).toBe(201);
  });

  it('refuses with 403 an admin deleting themselves', async () => {
    expectError(await call('DELETE', `${account.path}/users/${account.adminId}`, { token: account.adminToken }), 403, { code: undefined });
    expect((await getUser(account.adminId)).status).toBe(200);
  });

  it('refuses with 403 a user deleting themselves', async () => {
    expectError(await call('DELETE', `${account.path}/users/${self.id}`, { token: self.token }), 403, { code: undefined });
    expect((await getUser(self.id)).status).toBe(200);
  });

  it('hides other users from a user bearer trying to delete them (404)', async () => {
    const john = await newTarget();
    expectError(await call('DELETE', `${account.path}/users/${john.id}`, { token: reader.token }), 404, { code: 'NOT_FOUND' });
    expect((await getUser(john.id)).status).toBe(200);
  });
});

describe.concurrent('POST /users/{id}/actions/ban and /unban', () => {
  it('bans a user: their tokens are revoked at once (401 TOKEN_INVALID) and logins refused; lifted, they log in again', async () => {
    const jane = await newUser(account);
    const second = await login(jane.email, jane.password);
    expect(second.status).toBe(201);
    const banned = await call('POST', `${account.path}/users/${jane.id}/actions/ban`, { token: account.adminToken });
    expect(banned.status, JSON.stringify(banned.body)).toBe(200);
    expect(banned.body.data.id).toBe(jane.id);
    expect(banned.body.data.attributes.status).toBe('BANNED');
    expect((await getUser(jane.id)).body.data.attributes.status).toBe('BANNED');
    expectError(await getUser(jane.id, jane.token), 401, { code: 'TOKEN_INVALID' });
    expectError(await getUser(jane.id, second.body.data.attributes.token), 401, { code: 'TOKEN_INVALID' });
    expectError(await login(jane.email, jane.password), 401, { code: 'CREDENTIALS_INVALID' });
    const tokens = await call('GET', `${account.path}/users/${jane.id}/tokens`, { token: account.adminToken });
    expect(tokens.body.data).toEqual([]);

    const unbanned = await call('POST', `${account.path}/users/${jane.id}/actions/unban`, { token: account.adminToken });
    expect(unbanned.status).toBe(200);
    expect(unbanned.body.data.attributes.status).toBe('ACTIVE');
    expectError(await getUser(jane.id, jane.token), 401, { code: 'TOKEN_INVALID' });
    const again = await login(jane.email, jane.password);
    expect(again.status).toBe(201);
    expect((await getUser(jane.id, again.body.data.attributes.token)).status).toBe(200);
  });

  it('bans a user logging in many times at once: no token made meanwhile outlives the ban', async () => {
    const jane = await newUser(account);
    const [logins, banned] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, () => login(jane.email, jane.password))),
      call('POST', `${account.path}/users/${jane.id}/actions/ban`, { token: account.adminToken }),
    ]);
    if (banned.status === 409) {
      // A login landed between reading the user's tokens and the ban: the ban asks to be retried.
      expect((await call('POST', `${account.path}/users/${jane.id}/actions/ban`, { token: account.adminToken })).status).toBe(200);
    } else {
      expect(banned.status).toBe(200);
    }
    for (const made of logins.filter((reply) => reply.status === 201)) {
      expectError(await getUser(jane.id, made.body.data.attributes.token), 401, { code: 'TOKEN_INVALID' });
    }
    const tokens = await call('GET', `${account.path}/users/${jane.id}/tokens`, { token: account.adminToken });
    expect(tokens.body.data).toEqual([]);
  });

  it("revokes a user's tokens when their role changes: a token acts as the role it was made for", async () => {
    const jane = await newUser(account);
    const promoted = await call('PATCH', `${account.path}/users/${jane.id}`, {
      token: account.adminToken,
      body: userBody({ role: 'admin' }),
    });
    expect(promoted.status).toBe(200);
    expectError(await getUser(jane.id, jane.token), 401, { code: 'TOKEN_INVALID' });
    const admin = await login(jane.email, jane.password);
    expect(admin.body.data.attributes.kind).toBe('admin-token');
    expect((await call('GET', `${account.path}/users`, { token: admin.body.data.attributes.token })).status).toBe(200);
    // Any other change leaves the tokens alone.
    const renamed = await call('PATCH', `${account.path}/users/${jane.id}`, {
      token: account.adminToken,
      body: userBody({ firstName: 'Janet', role: 'admin' }),
    });
    expect(renamed.status).toBe(200);
    expect((await getUser(jane.id, admin.body.data.attributes.token)).status).toBe(200);
  });

  it('refuses with 403 a user bearer banning or unbanning (themselves)', async () => {
    const jane = await newUser(account);
    expectError(await call('POST', `${account.path}/users/${jane.id}/actions/ban`, { token: jane.token }), 403, { code: undefined });
    expect((await getUser(jane.id, jane.token)).status).toBe(200);
    expectError(await call('POST', `${account.path}/users/${jane.id}/actions/unban`, { token: jane.token }), 403, { code: undefined });
  });

  it('hides other users from a user bearer trying to ban them (404)', async () => {
    const john = await newTarget();
    expectError(await call('POST', `${account.path}/users/${john.id}/actions/ban`, { token: reader.token }), 404, { code: 'NOT_FOUND' });
    expect((await getUser(john.id)).body.data.attributes.status).toBe('ACTIVE');
  });

  it('refuses with 403 an admin banning themselves', async () => {
    expectError(await call('POST', `${account.path}/users/${account.adminId}/actions/ban`, { token: account.adminToken }), 403, {
      code: undefined,
    });
    expect((await getUser(account.adminId)).body.data.attributes.status).toBe('ACTIVE');
  });

  it('answers 404 for banning an unknown user', async () => {
    expectError(await call('POST', `${account.path}/users/${randomUUID()}/actions/ban`, { token: account.adminToken }), 404, {
      code: 'NOT_FOUND',
    });
  });
});

describe.concurrent('GET /users/{id}/tokens', () => {
  it("lists a user's tokens, without their values, to an admin and to the user", async () => {
    const jane = await newUser(account);
    const second = await login(jane.email, jane.password);
    expect(second.status).toBe(201);
    for (const token of [account.adminToken, jane.token]) {
      const reply = await call('GET', `${account.path}/users/${jane.id}/tokens`, { token });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.data.map((t: any) => t.id).sort()).toEqual([jane.tokenId, second.body.data.id].sort());
      expect(reply.body.links.meta).toEqual({ pages: 1, count: 2 });
      for (const t of reply.body.data) {
        expect(t.type).toBe('tokens');
        expect(t.attributes).not.toHaveProperty('token');
        expect(t.relationships.bearer.data).toEqual({ type: 'users', id: jane.id });
      }
    }
  });

  it("hides another user's tokens from a user bearer (404)", async () => {
    expectError(await call('GET', `${account.path}/users/${self.id}/tokens`, { token: reader.token }), 404, { code: 'NOT_FOUND' });
  });
});

describe.concurrent('model rules (422)', () => {
  const create = (attributes: Record<string, unknown>) =>
    call('POST', `${account.path}/users`, { token: account.adminToken, body: userBody({ email: uniqueEmail('rule'), ...attributes }) });

  it('refuses an invalid e-mail with EMAIL_INVALID', async () => {
    expectError(await create({ email: 'not-an-email' }), 422, { code: 'EMAIL_INVALID', source: { pointer: '/data/attributes/email' } });
    const jane = await newTarget();
    expectError(await patchUser(jane.id, { email: 'still not one' }), 422, {
      code: 'EMAIL_INVALID',
      source: { pointer: '/data/attributes/email' },
    });
    expect((await getUser(jane.id)).body.data.attributes.email).toBe(jane.email);
  });

  it("refuses a PATCH to another user's e-mail, in any case, with EMAIL_TAKEN", async () => {
    const [jane, john] = await Promise.all([newTarget(), newTarget()]);
    for (const email of [john.email, john.email.toUpperCase()]) {
      expectError(await patchUser(jane.id, { email }), 422, { code: 'EMAIL_TAKEN', source: { pointer: '/data/attributes/email' } });
    }
    expect((await getUser(jane.id)).body.data.attributes.email).toBe(jane.email);
    expect((await getUser(john.id)).body.data.attributes.email).toBe(john.email);
    // Jane's own address is still hers.
    expectError(await create({ email: jane.email }), 422, { code: 'EMAIL_TAKEN' });
  });

  it('accepts a PATCH of a user to their own e-mail in another case, which stays taken', async () => {
    const jane = await newTarget();
    const reply = await patchUser(jane.id, { email: jane.email.toUpperCase() });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data.attributes.email).toBe(jane.email.toUpperCase());
    expectError(await create({ email: jane.email }), 422, { code: 'EMAIL_TAKEN' });
  });

  it('refuses a password shorter than 8 characters with PASSWORD_TOO_SHORT', async () => {
    expectError(await create({ password: 'short12' }), 422, {
      code: 'PASSWORD_TOO_SHORT',
      source: { pointer: '/data/attributes/password' },
    });
    const jane = await newTarget();
    expectError(await patchUser(jane.id, { password: '1234567' }), 422, {
      code: 'PASSWORD_TOO_SHORT',
      source: { pointer: '/data/attributes/password' },
    });
    expect((await create({ password: '12345678' })).status).toBe(201);
  });

  it('refuses an unknown role with ROLE_NOT_ALLOWED', async () => {
    expectError(await create({ role: 'superuser' }), 422, { code: 'ROLE_NOT_ALLOWED', source: { pointer: '/data/attributes/role' } });
    const jane = await newTarget();
    expectError(await patchUser(jane.id, { role: 'owner' }), 422, {
      code: 'ROLE_NOT_ALLOWED',
      source: { pointer: '/data/attributes/role' },
    });
    expect((await getUser(jane.id)).body.data.attributes.role).toBe('user');
  });

  it('refuses a first name over 255 characters with FIRST_NAME_TOO_LONG', async () => {
    expectError(await create({ firstName: 'x'.repeat(256) }), 422, {
      code: 'FIRST_NAME_TOO_LONG',
      source: { pointer: '/data/attributes/firstName' },
    });
    expect((await create({ firstName: 'x'.repeat(255) })).status).toBe(201);
    const jane = await newTarget();
    expectError(await patchUser(jane.id, { firstName: 'y'.repeat(256) }), 422, {
      code: 'FIRST_NAME_TOO_LONG',
      source: { pointer: '/data/attributes/firstName' },
    });
  });

  it('refuses metadata with more than 64 keys with METADATA_TOO_LARGE', async () => {
    const metadata = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expectError(await create({ metadata: metadata(65) }), 422, {
      code: 'METADATA_TOO_LARGE',
      source: { pointer: '/data/attributes/metadata' },
    });
    expect((await create({ metadata: metadata(64) })).status).toBe(201);
    const jane = await newTarget();
    expectError(await patchUser(jane.id, { metadata: metadata(65) }), 422, {
      code: 'METADATA_TOO_LARGE',
      source: { pointer: '/data/attributes/metadata' },
    });
  });
});

describe.concurrent('body shape (400)', () => {
  const post = (body: unknown) => call('POST', `${account.path}/users`, { token: account.adminToken, body });

  it('says "is missing" at /data/attributes/email when the e-mail is missing', async () => {
    expectError(await post(userBody({ firstName: 'No' })), 400, { source: { pointer: '/data/attributes/email' }, detail: 'is missing' });
  });

  it('says "unpermitted parameter" for an unknown attribute', async () => {
    expectError(await post(userBody({ email: uniqueEmail('x'), nickname: 'J' })), 400, {
      source: { pointer: '/data/attributes/nickname' },
      detail: 'unpermitted parameter',
    });
  });

  it('refuses a wrong data.type', async () => {
    expectError(await post({ data: { type: 'tokens', attributes: { email: uniqueEmail('x') } } }), 400, {
      source: { pointer: '/data/type' },
    });
  });

  it('refuses a client-chosen data.id', async () => {
    const id = randomUUID();
    expectError(await post({ data: { type: 'users', id, attributes: { email: uniqueEmail('x') } } }), 400, {
      source: { pointer: '/data/id' },
    });
    expectError(await getUser(id), 404, { code: 'NOT_FOUND' });
  });

  it('refuses an attribute of the wrong type with "type mismatch"', async () => {
    expectError(await post(userBody({ email: 5 })), 400, { source: { pointer: '/data/attributes/email' }, detail: /^type mismatch/ });
    expectError(await post(userBody({ email: uniqueEmail('x'), metadata: 'gold' })), 400, {
      source: { pointer: '/data/attributes/metadata' },
      detail: /^type mismatch/,
    });
  });

  it('refuses a blank e-mail with "cannot be blank"', async () => {
    expectError(await post(userBody({ email: '   ' })), 400, { source: { pointer: '/data/attributes/email' }, detail: 'cannot be blank' });
  });

  it('refuses a missing body with a pointer to /data', async () => {
    expectError(await call('POST', `${account.path}/users`, { token: account.adminToken }), 400, { source: { pointer: '/data' } });
  });

  it('refuses an unknown attribute on PATCH and changes nothing', async () => {
    const jane = await newTarget();
    expectError(await patchUser(jane.id, { firstName: 'Changed', status: 'BANNED' }), 400, {
      source: { pointer: '/data/attributes/status' },
      detail: 'unpermitted parameter',
    });
    expect((await getUser(jane.id)).body.data.attributes).toMatchObject({ firstName: 'Test', status: 'ACTIVE' });
  });
});

describe('what a user bearer may not do', () => {
  it('refuses with 403 a user creating users, and creates nothing', async () => {
    const before = await usersCount();
    const email = uniqueEmail('by-user');
    expectError(await call('POST', `${account.path}/users`, { token: reader.token, body: userBody({ email }) }), 403, { code: undefined });
    expect(await usersCount()).toBe(before);
    // The address was never claimed.
    expect((await call('POST', `${account.path}/users`, { token: account.adminToken, body: userBody({ email }) })).status).toBe(201);
  });

  it('refuses with 403 a user listing users', async () => {
    expectError(await call('GET', `${account.path}/users`, { token: reader.token }), 403, { code: undefined });
  });
});

describe.concurrent('POST /users/{id}/actions/update-password (docs/rules.md §27.4)', () => {
  const update = (id: string, token: string, meta: Record<string, unknown>) =>
    call('POST', `${account.path}/users/${id}/actions/update-password`, { token, body: { meta } });
  const login = (email: string, password: string) => call('POST', `${account.path}/tokens`, { authorization: basic(email, password) });
  const works = async (token: string, id: string) => (await call('GET', `${account.path}/users/${id}`, { token })).status;

  it('changes the own password given the old one; the other tokens stop, the one used stays; logging in takes the new one', async () => {
    const user = await newUser(account, { password: 'the first password' });
    const second = await login(user.email, 'the first password');
    const reply = await update(user.id, user.token, { oldPassword: 'the first password', newPassword: 'the second password' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data).toMatchObject({ id: user.id, type: 'users' });
    expect(await works(user.token, user.id)).toBe(200);
    expect(await works(second.body.data.attributes.token, user.id)).toBe(401);
    expectError(await login(user.email, 'the first password'), 401, { code: 'CREDENTIALS_INVALID' });
    expect((await login(user.email, 'the second password')).status).toBe(201);
  });

  it('a wrong old password: 401 CREDENTIALS_INVALID at /meta/oldPassword; a short new one: 422 at /meta/newPassword; nothing changes', async () => {
    const user = await newUser(account, { password: 'the first password' });
    const wrong = await update(user.id, user.token, { oldPassword: 'not it', newPassword: 'the second password' });
    expectError(wrong, 401, { code: 'CREDENTIALS_INVALID' });
    expect(wrong.body.errors[0]).toMatchObject({ detail: 'is not valid', source: { pointer: '/meta/oldPassword' } });
    const short = await update(user.id, user.token, { oldPassword: 'the first password', newPassword: 'short' });
    expectError(short, 422, { code: 'PASSWORD_TOO_SHORT' });
    expect(short.body.errors[0].source).toEqual({ pointer: '/meta/newPassword' });
    expectError(await update(user.id, user.token, { oldPassword: 'the first password' }), 400, { code: 'PARAMETER_INVALID' });
    expect(await works(user.token, user.id)).toBe(200);
    expect((await login(user.email, 'the first password')).status).toBe(201);
  });

  it('guesses of the old password count as log-ins: past 30, 429 with Retry-After, and logging in is limited alike', async () => {
    const user = await newUser(account, { password: 'the first password' });
    const guesses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => update(user.id, user.token, { oldPassword: `guess ${i}`, newPassword: 'the second password' })),
    );
    // The log-in that gave the user its token counted too.
    const statuses = guesses.map((reply) => reply.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(29);
    const limited =
      guesses.find((reply) => reply.status === 429) ?? (await update(user.id, user.token, { oldPassword: 'x', newPassword: 'y' }));
    expectError(limited, 429, { code: 'TOO_MANY_REQUESTS' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expectError(await login(user.email, 'the first password'), 429, { code: 'TOO_MANY_REQUESTS' });
  });

  it('only the user themself: an administrator is refused (403), another user does not see them (404)', async () => {
    const user = await newUser(account, { password: 'the first password' });
    const other = await newUser(account);
    const meta = { oldPassword: 'the first password', newPassword: 'the second password' };
    expectError(await update(user.id, account.adminToken, meta), 403);
    expectError(await update(user.id, other.token, meta), 404, { code: 'NOT_FOUND' });
    expect((await login(user.email, 'the first password')).status).toBe(201);
  });

  it('two concurrent updates from the same old password: one 200, the other 409 or 401', async () => {
    const user = await newUser(account, { password: 'the first password' });
    const replies = await Promise.all(
      ['the second password', 'the third password'].map((newPassword) =>
        update(user.id, user.token, { oldPassword: 'the first password', newPassword }),
      ),
    );
    const statuses = replies.map((reply) => reply.status).sort();
    expect(statuses[0], JSON.stringify(replies.map((reply) => reply.body))).toBe(200);
    expect([401, 409]).toContain(statuses[1]);
  });
});

describe.concurrent('POST /users/{id}/tokens (docs/rules.md §14.3)', () => {
  const generate = (id: string, token: string, attributes?: Record<string, unknown>) =>
    call('POST', `${account.path}/users/${id}/tokens`, {
      token,
      ...(attributes ? { body: { data: { type: 'tokens', attributes } } } : {}),
    });

  it('an administrator gives a user a token: 200, its value shown once, living 14 days; it acts as the user', async () => {
    const user = await newUser(account);
    const reply = await generate(user.id, account.adminToken, { name: 'support' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const { attributes, relationships } = reply.body.data;
    expect(attributes).toMatchObject({ kind: 'user-token', name: 'support' });
    expect(attributes.token).toMatch(/^user-[0-9a-f]{64}$/);
    expect(Math.abs(Date.parse(attributes.expiry) - (Date.now() + 14 * 24 * 3600 * 1000))).toBeLessThan(60_000);
    expect(relationships.bearer.data).toEqual({ type: 'users', id: user.id });
    const me = await call('GET', `${account.path}/me`, { token: attributes.token });
    expect(me.body.data).toMatchObject({ type: 'users', id: user.id });
    expectError(await generate(user.id, account.adminToken, { expiry: new Date(Date.now() + 15 * 24 * 3600 * 1000).toISOString() }), 422, {
      code: 'EXPIRY_INVALID',
    });
  });

  it('a narrowed credential gives no token wider than itself (403): not a way to mint a whole user', async () => {
    const user = await newUser(account);
    const narrowed = await generate(account.adminId, account.adminToken, { permissions: ['user.read', 'user.tokens.generate'] });
    expect(narrowed.status, JSON.stringify(narrowed.body)).toBe(200);
    const as = narrowed.body.data.attributes.token;
    expectError(await generate(user.id, as), 403);
    // Narrowed to what it holds itself, the token may be given.
    expect((await generate(user.id, as, { permissions: ['user.read'] })).status).toBe(200);
  });

  it('only administrators: the user themself is refused (403), another user does not see them (404); a banned user holds none', async () => {
    const user = await newUser(account);
    const other = await newUser(account);
    expectError(await generate(user.id, user.token), 403);
    expectError(await generate(user.id, other.token), 404, { code: 'NOT_FOUND' });
    expect((await call('POST', `${account.path}/users/${user.id}/actions/ban`, { token: account.adminToken })).status).toBe(200);
    expectError(await generate(user.id, account.adminToken), 403);
  });
});
