/**
 * Changing a license's owner (docs/rules.md §18.10): PUT /licenses/<id>/owner and Keygen's older
 * /user, the license's move between its owners' lists, the hand-over of its machines, components
 * and processes (what the old owner reached through the license, the new one reaches), who may,
 * and creates racing a change.
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

const setOwner = (licenseId: string, userId: string | null, options: { token?: string; path?: 'owner' | 'user'; type?: string } = {}) =>
  l.api('PUT', `/licenses/${encodeURIComponent(licenseId)}/${options.path ?? 'owner'}`, {
    ...(options.token !== undefined && { token: options.token }),
    body: { data: userId === null ? null : { type: options.type ?? 'users', id: userId } },
  });
const status = async (path: string, token: string) => (await l.api('GET', path, { token })).status;

/** A license owned by a new user, with a machine (owned through the license), a component and a process on it. */
async function ownedGraph() {
  const owner = await newUser(account);
  const { product, policy, license, machine } = await l.graph({ owner: owner.id });
  const component = await l.component(machine.id);
  const process = await l.api('POST', '/processes', {
    body: doc('processes', { pid: `pid-${randomUUID()}` }, { machine: ref('machines', machine.id) }),
  });
  expect(process.status, JSON.stringify(process.body)).toBe(201);
  return { owner, product, policy, license, machine, component, process: process.body.data };
}

describe.concurrent("a license's owner", () => {
  it('moves to the user named: the license, its lists and what hangs on it follow; the old owner sees none of it', async () => {
    const g = await ownedGraph();
    const next = await newUser(account);
    const changed = await setOwner(g.license.id, next.id);
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.data.relationships.owner.data).toEqual({ type: 'users', id: next.id });
    expect((await l.api('GET', `/licenses/${g.license.id}/owner`)).body.data.id).toBe(next.id);
    const [event] = await eventPayloads(account, 'license.owner.updated', g.license.id);
    expect(event.data.relationships.owner.data.id).toBe(next.id);

    for (const path of [
      `/licenses/${g.license.id}`,
      `/machines/${g.machine.id}`,
      `/components/${g.component.id}`,
      `/processes/${g.process.id}`,
    ]) {
      expect(await status(path, next.token), path).toBe(200);
      expect(await status(path, g.owner.token), path).toBe(404);
    }
    // The machine was the old owner's through the license: it is the new owner's now, and its lists say so.
    expect((await l.api('GET', `/machines/${g.machine.id}`)).body.data.relationships.owner.data.id).toBe(next.id);
    expect(ids(await l.api('GET', `/users/${next.id}/licenses`))).toEqual([g.license.id]);
    expect(ids(await l.api('GET', `/users/${next.id}/machines`))).toEqual([g.machine.id]);
    expect(ids(await l.api('GET', `/users/${g.owner.id}/licenses`))).toEqual([]);
    expect(ids(await l.api('GET', `/users/${g.owner.id}/machines`))).toEqual([]);
    // The key says so too: a validation scoped to the new owner is valid.
    const validated = await call('POST', `${account.path}/licenses/actions/validate-key`, {
      body: { meta: { key: g.license.attributes.key, scope: { user: next.id } } },
    });
    expect(validated.body.meta.code).toBe('VALID');
  });

  it("keeps a machine another user owns that user's, reached by the new owner too; data null leaves the license without one", async () => {
    const g = await ownedGraph();
    const other = await newUser(account);
    // A machine's owner is one of its license's users: attached first.
    expect((await l.api('POST', `/licenses/${g.license.id}/users`, { body: { data: [{ type: 'users', id: other.id }] } })).status).toBe(
      200,
    );
    const theirs = await l.machine(g.license.id, {}, { owner: other.id });
    const next = await newUser(account);
    expect((await setOwner(g.license.id, next.id)).status).toBe(200);
    expect((await l.api('GET', `/machines/${theirs.id}`)).body.data.relationships.owner.data.id).toBe(other.id);
    expect(await status(`/machines/${theirs.id}`, other.token)).toBe(200);
    expect(await status(`/machines/${theirs.id}`, next.token)).toBe(200);

    const none = await setOwner(g.license.id, null);
    expect(none.status, JSON.stringify(none.body)).toBe(200);
    expect(none.body.data.relationships.owner.data).toBeNull();
    expect(await status(`/licenses/${g.license.id}`, next.token)).toBe(404);
    expect(await status(`/machines/${g.machine.id}`, next.token)).toBe(404);
    expect(await status(`/machines/${theirs.id}`, other.token)).toBe(200);
    expect((await l.api('GET', `/machines/${g.machine.id}`)).body.data.relationships.owner.data).toBeNull();
    // And back to someone.
    expect((await setOwner(g.license.id, g.owner.id)).status).toBe(200);
    expect(await status(`/components/${g.component.id}`, g.owner.token)).toBe(200);
  });

  it("hands over every machine, however many: 30 machines in chunks; Keygen's /user path and the license named by key", async () => {
    const owner = await newUser(account);
    const { license } = await l.graph({ owner: owner.id });
    const machines = await Promise.all(Array.from({ length: 29 }, () => l.machine(license.id)));
    const next = await newUser(account);
    const changed = await setOwner(license.attributes.key, next.id, { path: 'user', type: 'user' });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const reached = await call('GET', `${account.path}/machines?license=${license.id}&page[size]=100`, { token: next.token });
    expect(reached.body.data).toHaveLength(30);
    for (const machine of machines) expect(await status(`/machines/${machine.id}`, owner.token)).toBe(404);
  });

  it('machines activated while the owner changes end up handed over too', async () => {
    const owner = await newUser(account);
    const { license } = await l.graph({ owner: owner.id });
    const next = await newUser(account);
    const [change, ...activations] = await Promise.all([
      setOwner(license.id, next.id),
      ...Array.from({ length: 20 }, () =>
        l.api('POST', '/machines', {
          body: doc('machines', { fingerprint: `fp-${randomUUID()}` }, { license: ref('licenses', license.id) }),
        }),
      ),
    ]);
    expect(change?.status, JSON.stringify(change?.body)).toBe(200);
    const made = activations.filter((reply) => reply.status === 201);
    for (const reply of activations.filter((r) => r.status !== 201)) expectCode(reply, 409);
    expect(made.length).toBeGreaterThan(0);
    for (const reply of made) {
      expect(await status(`/machines/${reply.body.data.id}`, next.token)).toBe(200);
      expect(await status(`/machines/${reply.body.data.id}`, owner.token)).toBe(404);
    }
  });

  it('refuses a user it may not name (422 at /data), a malformed body (400); changes nothing', async () => {
    const g = await ownedGraph();
    expect(expectCode(await setOwner(g.license.id, randomUUID()), 422, 'OWNER_NOT_FOUND').source.pointer).toBe('/data');
    expectCode(await setOwner(g.license.id, 'not-a-uuid'), 422, 'OWNER_NOT_FOUND');
    for (const body of [{}, { data: { type: 'licenses', id: g.owner.id } }, { data: { type: 'users' } }, { data: [] }]) {
      expectCode(await l.api('PUT', `/licenses/${g.license.id}/owner`, { body }), 400);
    }
    expect((await l.api('GET', `/licenses/${g.license.id}/owner`)).body.data.id).toBe(g.owner.id);
    expect(await status(`/machines/${g.machine.id}`, g.owner.token)).toBe(200);
  });

  it("is the administrators' and the license's product's to change; not the owner's, the license's or another product's", async () => {
    const g = await ownedGraph();
    const next = await newUser(account);
    expectCode(await setOwner(g.license.id, next.id, { token: g.owner.token }), 403);
    expectCode(await setOwner(g.license.id, next.id, { token: await l.licenseToken(g.license.id) }), 403);
    expectCode(await setOwner(g.license.id, next.id, { token: await l.productToken((await l.product()).id) }), 404);
    const changed = await setOwner(g.license.id, next.id, { token: await l.productToken(g.product.id) });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  });
});
