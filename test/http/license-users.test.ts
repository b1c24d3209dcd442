/**
 * A license's users (docs/rules.md §18.11): GET|POST|DELETE /licenses/<id>/users, what a user
 * attached reaches and lists, maxUsers under concurrent attaches, validation (TOO_MANY_USERS, a
 * `user` scope naming a user attached), and what a user's or a license's delete and an owner
 * change do to attachments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newNamedUser, newUser, type Reply, type TestAccount } from '../support/client.ts';
import { doc, expectCode, ids, type licensing, listeningAccount, ref } from '../support/licensing.ts';
import type { Receiver } from '../support/receiver.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
let receiver: Receiver;

beforeAll(async () => {
  ({ account, l, receiver } = await listeningAccount());
});

afterAll(() => receiver.close());

const named = (...userIds: string[]) => ({ data: userIds.map((id) => ({ type: 'users', id })) });
const attach = (licenseId: string, userIds: string[], token?: string) =>
  l.api('POST', `/licenses/${encodeURIComponent(licenseId)}/users`, { body: named(...userIds), ...(token !== undefined && { token }) });
const detach = (licenseId: string, userIds: string[], token?: string) =>
  l.api('DELETE', `/licenses/${encodeURIComponent(licenseId)}/users`, { body: named(...userIds), ...(token !== undefined && { token }) });
const usersOf = async (licenseId: string) => ids(await l.api('GET', `/licenses/${licenseId}/users?page[size]=100`));
const users = (n: number) => Promise.all(Array.from({ length: n }, () => newUser(account)));
/** Users only named, never acting: no password to hash. */
const namedUsers = (n: number) => Promise.all(Array.from({ length: n }, () => newNamedUser(account)));
const validate = (key: string, scope: Record<string, unknown> = {}) =>
  call('POST', `${account.path}/licenses/actions/validate-key`, { body: { meta: { key, scope } } });

/** The payloads of the webhook events of `kind` about `licenseId`'s users (each carries a list of attachments). */
async function attachmentEvents(kind: string, licenseId: string): Promise<any[]> {
  const reply: Reply = await call('GET', `${account.path}/webhook-events?events[]=${kind}&page[size]=100`, { token: account.adminToken });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data
    .map((event: any) => JSON.parse(event.attributes.payload))
    .filter((payload: any) => payload.data[0]?.relationships.license.data.id === licenseId);
}

describe.concurrent("a license's users", () => {
  it('attaches users, who then read the license and what hangs on it, list it, hold its entitlements and validate as its users', async () => {
    const owner = await newUser(account);
    const { license, machine } = await l.graph({ owner: owner.id });
    const component = await l.component(machine.id);
    const [first, second] = await users(2);
    const attached = await attach(license.attributes.key, [first!.id, second!.id]);
    expect(attached.status, JSON.stringify(attached.body)).toBe(200);
    expect(attached.body.data.map((made: any) => [made.type, made.relationships.user.data.id, made.relationships.license.data.id])).toEqual(
      [
        ['license-users', first!.id, license.id],
        ['license-users', second!.id, license.id],
      ],
    );
    expect((await usersOf(license.id)).sort()).toEqual([first!.id, second!.id].sort());
    const [event] = await attachmentEvents('license.users.attached', license.id);
    expect(event.data.map((made: any) => made.relationships.user.data.id)).toEqual([first!.id, second!.id]);

    for (const path of [
      `/licenses/${license.id}`,
      `/machines/${machine.id}`,
      `/components/${component.id}`,
      `/licenses/${license.id}/users`,
    ]) {
      expect((await l.api('GET', path, { token: first!.token })).status, path).toBe(200);
    }
    // The key stays its owner's to see; renewing and changing its users stay the owner's to do.
    expect((await l.api('GET', `/licenses/${license.id}`, { token: first!.token })).body.data.attributes.key).toBeNull();
    expectCode(await l.api('POST', `/licenses/${license.id}/actions/renew`, { token: first!.token }), 403);
    expectCode(await detach(license.id, [second!.id], first!.token), 403);
    // Its lists: every list of licenses a user asks merges the licenses it owns with those it is attached to.
    const own = await l.license(license.relationships.policy.data.id, {}, { owner: first!.id });
    expect(ids(await l.api('GET', '/licenses', { token: first!.token }))).toEqual([own.id, license.id]);
    expect(ids(await l.api('GET', `/users/${first!.id}/licenses`))).toEqual([own.id, license.id]);
    expect(ids(await l.api('GET', `/licenses?user=${first!.id}`))).toEqual([own.id, license.id]);
    expect(ids(await l.api('GET', `/licenses?owner=${first!.id}`))).toEqual([own.id]);
    const counted = await l.api('GET', `/users/${first!.id}/licenses?page[size]=1`);
    expect(counted.body.links.meta.count).toBe(2);
    // Validation: a user scope names any of its users, by id or e-mail.
    expect((await validate(license.attributes.key, { user: first!.id })).body.meta.code).toBe('VALID');
    expect((await validate(license.attributes.key, { user: second!.email.toUpperCase() })).body.meta.code).toBe('VALID');
    const stranger = await newUser(account);
    expect((await validate(license.attributes.key, { user: stranger.email })).body.meta.code).toBe('USER_SCOPE_MISMATCH');

    const detached = await detach(license.id, [first!.id]);
    expect(detached.status, JSON.stringify(detached.body)).toBe(204);
    const [gone] = await attachmentEvents('license.users.detached', license.id);
    expect(gone.data.map((made: any) => made.relationships.user.data.id)).toEqual([first!.id]);
    expect(await usersOf(license.id)).toEqual([second!.id]);
    expect((await l.api('GET', `/licenses/${license.id}`, { token: first!.token })).status).toBe(404);
    expect((await l.api('GET', `/machines/${machine.id}`, { token: first!.token })).status).toBe(404);
    expect(ids(await l.api('GET', '/licenses', { token: first!.token }))).toEqual([own.id]);
  });

  it('pages its users newest attachment first, by number and by cursor, and lets its owner attach any user', async () => {
    const owner = await newUser(account);
    const { license } = await l.graph({ owner: owner.id });
    const five = await namedUsers(5);
    for (const user of five) expect((await attach(license.id, [user.id], owner.token)).status).toBe(200);
    const newest = five.map((user) => user.id).reverse();
    const byNumber = await Promise.all(
      [1, 2, 3].map(async (n) => ids(await l.api('GET', `/licenses/${license.id}/users?page[size]=2&page[number]=${n}`))),
    );
    expect(byNumber.flat()).toEqual(newest);
    const byCursor: string[] = [];
    let next: string | null = `${account.path}/licenses/${license.id}/users?page[size]=2&page[cursor]=`;
    while (next) {
      const page: Reply = await call('GET', next, { token: account.adminToken });
      byCursor.push(...ids(page));
      next = page.body.links.next;
    }
    expect(byCursor).toEqual(newest);
    expect((await l.api('GET', `/licenses/${license.id}/users?page[size]=2`)).body.links.meta.count).toBe(5);
  });

  it("takes a machine's owner among its users only, and a user detached loses the machines it owned there", async () => {
    const owner = await newUser(account);
    const { license } = await l.graph({ owner: owner.id });
    const [user] = await users(1);
    const stranger = await newNamedUser(account);
    const refused = await l.api('POST', '/machines', {
      body: doc(
        'machines',
        { fingerprint: `fp-${crypto.randomUUID()}` },
        { license: ref('licenses', license.id), owner: ref('users', stranger.id) },
      ),
    });
    expectCode(refused, 422, 'OWNER_INVALID');
    expect(refused.body.errors[0].source.pointer).toBe('/data/relationships/owner');
    expect((await attach(license.id, [user!.id])).status).toBe(200);
    const machine = await l.machine(license.id, {}, { owner: user!.id });
    const component = await l.component(machine.id);
    expect((await l.api('GET', `/components/${component.id}`)).body.data.relationships).toBeDefined();
    expect(ids(await l.api('GET', '/machines', { token: user!.token }))).toEqual([machine.id]);

    expect((await detach(license.id, [user!.id])).status).toBe(204);
    expect((await l.api('GET', `/machines/${machine.id}`, { token: user!.token })).status).toBe(404);
    expect((await l.api('GET', `/components/${component.id}`, { token: user!.token })).status).toBe(404);
    expect(ids(await l.api('GET', `/machines?owner=${user!.id}`))).toEqual([]);
    expect(ids(await l.api('GET', `/components?owner=${user!.id}`))).toEqual([]);
    expect((await l.api('GET', `/machines/${machine.id}`)).body.data.relationships.owner.data).toBeNull();
    // The license's owner still reaches it.
    expect((await l.api('GET', `/machines/${machine.id}`, { token: owner.token })).status).toBe(200);
  });

  it("gives a machine to one of the license's users with PUT /machines/<id>/owner, its components and processes following", async () => {
    const owner = await newUser(account);
    const { license, machine } = await l.graph({ owner: owner.id });
    const component = await l.component(machine.id);
    const process = await l.api('POST', '/processes', {
      body: doc('processes', { pid: `pid-${crypto.randomUUID()}` }, { machine: ref('machines', machine.id) }),
    });
    expect(process.status).toBe(201);
    const [user] = await users(1);
    const setOwner = (userId: string | null, token?: string) =>
      l.api('PUT', `/machines/${machine.id}/owner`, {
        body: { data: userId === null ? null : { type: 'users', id: userId } },
        ...(token !== undefined && { token }),
      });
    expectCode(await setOwner(user!.id), 422, 'OWNER_INVALID');
    expectCode(await setOwner(crypto.randomUUID()), 422, 'OWNER_NOT_FOUND');
    expect((await attach(license.id, [user!.id])).status).toBe(200);
    // A user attached may not give machines away; the license's owner may.
    expectCode(await setOwner(user!.id, user!.token), 403);
    const moved = await setOwner(user!.id, owner.token);
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.data.relationships.owner.data.id).toBe(user!.id);
    expect(ids(await l.api('GET', `/machines?owner=${user!.id}`))).toEqual([machine.id]);
    expect(ids(await l.api('GET', `/components?owner=${user!.id}`))).toEqual([component.id]);
    expect(ids(await l.api('GET', `/processes?owner=${user!.id}`))).toEqual([process.body.data.id]);
    expect(ids(await l.api('GET', '/machines', { token: user!.token }))).toEqual([machine.id]);
    const events = await l.api('GET', `/webhook-events?events[]=machine.owner.updated&page[size]=100`);
    expect(events.body.data.some((event: any) => JSON.parse(event.attributes.payload).data.id === machine.id)).toBe(true);
    // Its new owner, not the license's owner, may not give it on; nor may the owner of a protected license.
    expectCode(await setOwner(null, user!.token), 403);
    const guardedOwner = await newUser(account);
    const guarded = await l.graph({ owner: guardedOwner.id, license: { protected: true } });
    expectCode(await l.api('PUT', `/machines/${guarded.machine.id}/owner`, { token: guardedOwner.token, body: { data: null } }), 403);
    // None: the machine and what hangs on it have no owner; the license's owner still reaches them.
    expect((await setOwner(null)).body.data.relationships.owner.data).toBeNull();
    expect(ids(await l.api('GET', `/components?owner=${user!.id}`))).toEqual([]);
    expect((await l.api('GET', `/components/${component.id}`, { token: owner.token })).status).toBe(200);
  });

  it('gives its attached users the entitlements the license holds', async () => {
    const { license } = await l.graph({ owner: (await newUser(account)).id });
    const code = `feature-${crypto.randomUUID()}`;
    const entitlement = await l.api('POST', '/entitlements', { body: doc('entitlements', { name: code, code }) });
    expect(entitlement.status).toBe(201);
    const attached = await l.api('POST', `/licenses/${license.id}/entitlements`, {
      body: { data: [{ type: 'entitlements', id: entitlement.body.data.id }] },
    });
    expect(attached.status, JSON.stringify(attached.body)).toBe(200);
    const [user] = await users(1);
    expect((await l.api('GET', `/entitlements/${entitlement.body.data.id}`, { token: user!.token })).status).toBe(404);
    expect((await attach(license.id, [user!.id])).status).toBe(200);
    expect((await l.api('GET', `/entitlements/${entitlement.body.data.id}`, { token: user!.token })).status).toBe(200);
  });

  it('refuses, changing nothing: its owner, a user attached already or named twice, a user not found, too many named', async () => {
    const owner = await newUser(account);
    const { license } = await l.graph({ owner: owner.id });
    const [first, second] = await namedUsers(2);
    expect((await attach(license.id, [first!.id])).status).toBe(200);
    const asOwner = await attach(license.id, [second!.id, owner.id]);
    expectCode(asOwner, 422, 'USER_CONFLICT');
    expect(asOwner.body.errors[0].source.pointer).toBe('/data/1');
    const again = await attach(license.id, [second!.id, first!.id]);
    expectCode(again, 422, 'USER_TAKEN');
    expect(again.body.errors[0].source.pointer).toBe('/data/1');
    expectCode(await attach(license.id, [second!.id, second!.id]), 422, 'USER_TAKEN');
    const missing = await attach(license.id, [second!.id, crypto.randomUUID()]);
    expectCode(missing, 422, 'USER_NOT_FOUND');
    expectCode(await attach(license.id, [second!.id, 'not-a-user']), 422, 'USER_NOT_FOUND');
    expect(await usersOf(license.id)).toEqual([first!.id]);
    expectCode(await attach(license.id, []), 400);
    expectCode(
      await attach(
        license.id,
        Array.from({ length: 101 }, () => crypto.randomUUID()),
      ),
      400,
    );
    expectCode(await l.api('POST', `/licenses/${license.id}/users`, { body: { data: [{ type: 'licenses', id: second!.id }] } }), 400);

    // Detaching: the owner is attached through its ownership (403, as Keygen); a user not attached, 422.
    expectCode(await detach(license.id, [first!.id, owner.id]), 403);
    const notAttached = await detach(license.id, [first!.id, second!.id]);
    expectCode(notAttached, 422, 'USER_NOT_FOUND');
    expect(notAttached.body.errors[0].source.pointer).toBe('/data/1');
    expect(await usersOf(license.id)).toEqual([first!.id]);
    expect((await attachmentEvents('license.users.detached', license.id)).length).toBe(0);
  });

  it('holds maxUsers (its owner counted) under concurrent attaches: 20 at once into room for 4 attach exactly 4', async () => {
    const owner = await newUser(account);
    const { license } = await l.graph({ owner: owner.id, policy: { maxUsers: 5 } });
    expect(license.attributes.maxUsers).toBe(5);
    const candidates = await namedUsers(20);
    const replies = await Promise.all(candidates.map((user) => attach(license.id, [user.id])));
    const statuses = replies.map((reply) => reply.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(4);
    for (const reply of replies.filter((candidate) => candidate.status !== 200)) {
      expectCode(reply, 422, 'LICENSE_USER_LIMIT_EXCEEDED');
      expect(reply.body.errors[0].detail).toBe('user count has exceeded maximum allowed for license (5)');
    }
    expect(await usersOf(license.id)).toHaveLength(4);
    expect((await validate(license.attributes.key)).body.meta.code).toBe('VALID');
  });

  it('attaches more than a transaction holds all or nothing: 30 at once, and none when the last of them pass the limit', async () => {
    const { license } = await l.graph({ owner: (await newUser(account)).id, license: { maxUsers: 28 } });
    const many = await namedUsers(30);
    expect((await attach(license.id, many.map((user) => user.id).slice(0, 27))).status).toBe(200);
    expect(await usersOf(license.id)).toHaveLength(27);

    const { license: other } = await l.graph({ owner: (await newUser(account)).id, license: { maxUsers: 27 } });
    const refused = await attach(
      other.id,
      many.map((user) => user.id),
    );
    expectCode(refused, 422, 'LICENSE_USER_LIMIT_EXCEEDED');
    expect(await usersOf(other.id)).toEqual([]);
    expect((await attachmentEvents('license.users.attached', other.id)).length).toBe(0);
    // The room is all there still.
    expect((await attach(other.id, many.map((user) => user.id).slice(0, 26))).status).toBe(200);
    expect(await usersOf(other.id)).toHaveLength(26);
  });

  it('answers TOO_MANY_USERS when the users pass a limit lowered since, valid within the overage allowed', async () => {
    const { license, policy } = await l.graph({ owner: (await newUser(account)).id });
    const [first, second] = await namedUsers(2);
    expect((await attach(license.id, [first!.id, second!.id])).status).toBe(200);
    expect((await validate(license.attributes.key)).body.meta.code).toBe('VALID');
    expect((await l.api('PATCH', `/licenses/${license.id}`, { body: doc('licenses', { maxUsers: 2 }) })).status).toBe(200);
    const over = (await validate(license.attributes.key)).body.meta;
    expect([over.valid, over.code, over.detail]).toEqual([false, 'TOO_MANY_USERS', 'has too many associated users']);
    expect(
      (await l.api('PATCH', `/policies/${policy.id}`, { body: doc('policies', { overageStrategy: 'ALLOW_2X_OVERAGE' }) })).status,
    ).toBe(200);
    expect((await validate(license.attributes.key)).body.meta).toMatchObject({ valid: true, code: 'TOO_MANY_USERS' });
  });

  it('refuses a maxUsers out of range on a policy or a license', async () => {
    const { policy, license } = await l.graph();
    expectCode(await l.api('PATCH', `/policies/${policy.id}`, { body: doc('policies', { maxUsers: -1 }) }), 422, 'MAX_USERS_INVALID');
    expectCode(
      await l.api('PATCH', `/licenses/${license.id}`, { body: doc('licenses', { maxUsers: 2_147_483_648 }) }),
      422,
      'MAX_USERS_INVALID',
    );
  });

  it("lets a user attached go with the user's delete, and become the owner once detached", async () => {
    const { license } = await l.graph({ owner: (await newUser(account)).id, license: { maxUsers: 3 } });
    const [first, second, third] = await namedUsers(3);
    expect((await attach(license.id, [first!.id, second!.id])).status).toBe(200);
    expectCode(await attach(license.id, [third!.id]), 422, 'LICENSE_USER_LIMIT_EXCEEDED');
    expect((await call('DELETE', `${account.path}/users/${first!.id}`, { token: account.adminToken })).status).toBe(204);
    expect(await usersOf(license.id)).toEqual([second!.id]);
    // The room the deleted user left is there. A user attached is no owner until detached (Keygen's rule).
    expect((await attach(license.id, [third!.id])).status).toBe(200);
    const refused = await l.api('PUT', `/licenses/${license.id}/owner`, { body: ref('users', second!.id) });
    expectCode(refused, 422, 'OWNER_INVALID');
    expect(refused.body.errors[0].source.pointer).toBe('/data/relationships/owner');
    expect((await detach(license.id, [second!.id])).status).toBe(204);
    const moved = await l.api('PUT', `/licenses/${license.id}/owner`, { body: ref('users', second!.id) });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(await usersOf(license.id)).toEqual([third!.id]);
    expect(ids(await l.api('GET', `/users/${second!.id}/licenses`))).toEqual([license.id]);
    expect((await validate(license.attributes.key)).body.meta.code).toBe('VALID');
  });

  it("lets its attachments go with the license's delete", async () => {
    const { license } = await l.graph();
    const [user] = await users(1);
    expect((await attach(license.id, [user!.id])).status).toBe(200);
    expect((await l.api('DELETE', `/licenses/${license.id}`)).status).toBe(204);
    expect(ids(await l.api('GET', '/licenses', { token: user!.token }))).toEqual([]);
    expect(ids(await l.api('GET', `/users/${user!.id}/licenses`))).toEqual([]);
  });
});
