/**
 * Accounts (docs/rules.md §12): `/v1/accounts/<account>` by UUID or slug, read and changed by
 * admins only; an unknown account is 404 before anything else is looked at (§2.3).
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { basic, call, expectError, newAccount, newUser, type TestAccount } from '../support/client.ts';

let account: TestAccount;
let user: Awaited<ReturnType<typeof newUser>>;
beforeAll(async () => {
  account = await newAccount();
  user = await newUser(account);
});

const accountBody = (attributes: Record<string, unknown>) => ({ data: { type: 'accounts', attributes } });
const patchAccount = (attributes: Record<string, unknown>, token = account.adminToken, path = account.path) =>
  call('PATCH', path, { token, body: accountBody(attributes) });
const readAccount = async () => {
  const reply = await call('GET', account.path, { token: account.adminToken });
  expect(reply.status).toBe(200);
  return reply.body.data;
};

describe('GET /v1/accounts/{account}', () => {
  it('shows the account to an admin by UUID', async () => {
    const reply = await call('GET', account.path, { token: account.adminToken });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(reply.body.data).toMatchObject({
      id: account.id,
      type: 'accounts',
      attributes: { slug: account.slug, name: `Test ${account.slug}`, protected: false },
      links: { self: account.path },
    });
    expect(typeof reply.body.data.attributes.created).toBe('string');
    expect(typeof reply.body.data.attributes.updated).toBe('string');
  });

  it('shows the same account by slug', async () => {
    const reply = await call('GET', `/v1/accounts/${account.slug}`, { token: account.adminToken });
    expect(reply.status).toBe(200);
    expect(reply.body.data.id).toBe(account.id);
    expect(reply.body.data.attributes.slug).toBe(account.slug);
  });

  it('refuses a user bearer with 403', async () => {
    expectError(await call('GET', account.path, { token: user.token }), 403, { code: undefined });
    expectError(await call('GET', `/v1/accounts/${account.slug}`, { token: user.token }), 403, { code: undefined });
  });

  it('refuses an admin of another account with 401 TOKEN_INVALID', async () => {
    const other = await newAccount();
    expectError(await call('GET', account.path, { token: other.adminToken }), 401, { code: 'TOKEN_INVALID' });
  });
});

describe('PATCH /v1/accounts/{account}', () => {
  it('changes the name, by UUID and by slug', async () => {
    const byId = await patchAccount({ name: 'Renamed by id' });
    expect(byId.status).toBe(200);
    expect(byId.body.data.attributes).toMatchObject({ name: 'Renamed by id', slug: account.slug });
    const bySlug = await patchAccount({ name: 'Renamed by slug' }, account.adminToken, `/v1/accounts/${account.slug}`);
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.data.id).toBe(account.id);
    expect(bySlug.body.data.attributes.name).toBe('Renamed by slug');
    expect((await readAccount()).attributes.name).toBe('Renamed by slug');
  });

  it('sets and clears the protected flag, leaving the name alone', async () => {
    const name = (await readAccount()).attributes.name;
    const on = await patchAccount({ protected: true });
    expect(on.status).toBe(200);
    expect(on.body.data.attributes).toMatchObject({ protected: true, name });
    expect((await readAccount()).attributes.protected).toBe(true);
    const off = await patchAccount({ protected: false });
    expect(off.status).toBe(200);
    expect((await readAccount()).attributes).toMatchObject({ protected: false, name });
  });

  it('refuses a protected flag that is not a boolean with 400, changing nothing', async () => {
    const before = await readAccount();
    expectError(await patchAccount({ name: 'Should not land', protected: 'yes' }), 400, {
      source: { pointer: '/data/attributes/protected' },
      detail: /^type mismatch/,
    });
    const after = await readAccount();
    expect(after.attributes).toEqual(before.attributes);
  });

  it('refuses a blank name with 400 "cannot be blank"', async () => {
    expectError(await patchAccount({ name: '  ' }), 400, { source: { pointer: '/data/attributes/name' }, detail: 'cannot be blank' });
  });

  it("accepts the account's own id as data.id, by UUID and by slug; another id is 409 ID_MISMATCH", async () => {
    const body = (id: string, name: string) => ({ data: { type: 'accounts', id, attributes: { name } } });
    const byId = await call('PATCH', account.path, { token: account.adminToken, body: body(account.id, 'Named with data.id') });
    expect(byId.status, JSON.stringify(byId.body)).toBe(200);
    const bySlug = await call('PATCH', `/v1/accounts/${account.slug}`, {
      token: account.adminToken,
      body: body(account.id.toUpperCase(), 'By slug with data.id'),
    });
    expect(bySlug.status, JSON.stringify(bySlug.body)).toBe(200);
    expectError(await call('PATCH', account.path, { token: account.adminToken, body: body(randomUUID(), 'Not this one') }), 409, {
      code: 'ID_MISMATCH',
      source: { pointer: '/data/id' },
    });
    expect((await readAccount()).attributes.name).toBe('By slug with data.id');
  });

  it('refuses a slug change as an unpermitted parameter', async () => {
    expectError(await patchAccount({ slug: `x-${randomUUID().slice(0, 8)}` }), 400, {
      source: { pointer: '/data/attributes/slug' },
      detail: 'unpermitted parameter',
    });
    expect((await readAccount()).attributes.slug).toBe(account.slug);
  });

  it('refuses a wrong data.type with 400', async () => {
    expectError(
      await call('PATCH', account.path, { token: account.adminToken, body: { data: { type: 'users', attributes: { name: 'X' } } } }),
      400,
      {
        source: { pointer: '/data/type' },
      },
    );
  });

  it('refuses a name over 255 characters with 422 NAME_TOO_LONG', async () => {
    expectError(await patchAccount({ name: 'n'.repeat(256) }), 422, {
      code: 'NAME_TOO_LONG',
      source: { pointer: '/data/attributes/name' },
    });
  });

  it('refuses a user bearer with 403, changing nothing', async () => {
    const before = await readAccount();
    expectError(await patchAccount({ name: 'By a user' }, user.token), 403, { code: undefined });
    expectError(await patchAccount({ protected: !before.attributes.protected }, user.token), 403, { code: undefined });
    expect((await readAccount()).attributes).toEqual(before.attributes);
  });
});

describe('an unknown account', () => {
  const unknownPaths = () => [`/v1/accounts/${randomUUID()}`, `/v1/accounts/no-such-account-${randomUUID().slice(0, 8)}`];

  it('answers 404 NOT_FOUND for the account itself, with or without a token', async () => {
    for (const path of unknownPaths()) {
      expectError(await call('GET', path, { token: account.adminToken }), 404, { code: 'NOT_FOUND' });
      expectError(await call('GET', path), 404, { code: 'NOT_FOUND' });
      expectError(await call('PATCH', path, { body: accountBody({ name: 'x' }) }), 404, { code: 'NOT_FOUND' });
    }
  });

  it('answers 404 NOT_FOUND, not 401, for every route under it, before authentication', async () => {
    for (const path of unknownPaths()) {
      const requests: Array<[string, string, Parameters<typeof call>[2]]> = [
        ['GET', `${path}/users`, {}],
        ['POST', `${path}/users`, { body: { data: { type: 'users', attributes: { email: 'a@b.example' } } } }],
        ['GET', `${path}/users/${randomUUID()}`, {}],
        ['PATCH', `${path}/users/${randomUUID()}`, { body: { data: { type: 'users', attributes: {} } } }],
        ['DELETE', `${path}/users/${randomUUID()}`, {}],
        ['POST', `${path}/users/${randomUUID()}/actions/ban`, {}],
        ['GET', `${path}/users/${randomUUID()}/tokens`, {}],
        ['GET', `${path}/tokens`, {}],
        ['GET', `${path}/tokens/${randomUUID()}`, {}],
        ['DELETE', `${path}/tokens/${randomUUID()}`, {}],
        ['POST', `${path}/tokens`, { authorization: basic(account.adminEmail, account.adminPassword) }],
        ['POST', `${path}/tokens`, {}],
        ['GET', `${path}/users`, { token: 'not-a-real-token' }],
      ];
      for (const [method, url, options] of requests) {
        const reply = await call(method, url, options);
        expect(reply.status, `${method} ${url}`).toBe(404);
        expectError(reply, 404, { code: 'NOT_FOUND' });
        expect(reply.headers.get('www-authenticate')).toBeNull();
      }
    }
  });

  it("refuses this account's admin token on another account's slug with 401 TOKEN_INVALID", async () => {
    const other = await newAccount();
    const reply = await call('GET', `/v1/accounts/${other.slug}`, { token: account.adminToken });
    expectError(reply, 401, { code: 'TOKEN_INVALID' });
  });
});
