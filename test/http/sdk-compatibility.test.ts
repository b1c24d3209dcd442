/**
 * Keygen's SDKs pointed at this API (docs/rules.md §11): GET /me for every kind of bearer, machine
 * activation with the attributes the SDKs send, machines named by fingerprint and licenses by key
 * in paths, and the headers the SDKs add.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { digest } from '#shared/auth/secrets.ts';
import { environmentMembership, machinesByFingerprintPartition } from '#shared/store/keys.ts';
import { partitionItems } from '#shared/store/paging.ts';
import { call, environmentToken, expectError, newAccount, newEnvironment, newUser, type TestAccount } from '../support/client.ts';
import { doc, expectCode, ids, licensing, ref } from '../support/licensing.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
});

const licenseKey = (key: string) => ({ authorization: `License ${key}` });
const path = (value: string) => encodeURIComponent(value);

/** The body keygen-go's `license.Activate(fingerprint)` sends: what it knows of the host, and the license. */
const sdkActivation = (licenseId: string, fingerprint: string) => ({
  data: {
    type: 'machines',
    attributes: { fingerprint, hostname: 'build-07.local', platform: 'linux/amd64', cores: 8 },
    relationships: { license: { data: { type: 'licenses', id: licenseId } } },
  },
});

/** The entries of the machines holding `fingerprint` (docs/data-model.md): what the lookup by fingerprint reads. */
const entriesOf = async (fingerprint: string) =>
  await partitionItems(undefined, machinesByFingerprintPartition(account.id, digest(fingerprint)));

const activate = (licenseId: string, attributes: Record<string, unknown>, options: { token?: string; authorization?: string } = {}) =>
  l.api('POST', '/machines', {
    ...options,
    body: doc('machines', { fingerprint: `fp-${randomUUID()}`, ...attributes }, { license: ref('licenses', licenseId) }),
  });

describe.concurrent('GET /me', () => {
  it('answers every kind of bearer with the record its credential stands for, as a GET of that record shows it', async () => {
    const owner = await newUser(account);
    const g = await l.graph({ owner: owner.id });
    const productToken = await l.productToken(g.product.id);
    const licenseToken = await l.licenseToken(g.license.id);
    const me = async (options: { token?: string; authorization?: string }) => {
      const reply = await call('GET', `${account.path}/me`, options);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body.data;
    };
    const asAdmin = await me({ token: account.adminToken });
    expect(asAdmin).toMatchObject({ type: 'users', id: account.adminId, attributes: { role: 'admin', email: account.adminEmail } });
    expect(asAdmin).toEqual((await l.api('GET', `/users/${account.adminId}`)).body.data);

    const asUser = await me({ token: owner.token });
    expect(asUser).toMatchObject({ type: 'users', id: owner.id, attributes: { role: 'user' } });
    expect(asUser).toEqual((await l.api('GET', `/users/${owner.id}`, { token: owner.token })).body.data);

    const asProduct = await me({ token: productToken });
    expect(asProduct).toEqual((await l.api('GET', `/products/${g.product.id}`, { token: productToken })).body.data);
    expect(asProduct.type).toBe('products');

    for (const options of [{ token: licenseToken }, licenseKey(g.license.attributes.key)]) {
      const asLicense = await me(options);
      expect(asLicense).toMatchObject({ type: 'licenses', id: g.license.id, attributes: { key: g.license.attributes.key } });
      expect(asLicense).toEqual((await l.api('GET', `/licenses/${g.license.id}`, options)).body.data);
    }
    // A license token narrowed to reading sees itself as a GET shows it: without its key.
    const narrowed = await l.api('POST', `/licenses/${g.license.id}/tokens`, {
      body: { data: { type: 'tokens', attributes: { permissions: ['license.read'] } } },
    });
    const narrowedToken = narrowed.body.data.attributes.token as string;
    const asNarrowed = await me({ token: narrowedToken });
    expect(asNarrowed.attributes.key).toBeNull();
    expect(asNarrowed).toEqual((await l.api('GET', `/licenses/${g.license.id}`, { token: narrowedToken })).body.data);

    expectError(await call('GET', `${account.path}/me`), 401, { code: 'TOKEN_MISSING' });
    expectError(await call('GET', `${account.path}/me`, { token: `user-${'0'.repeat(64)}` }), 401, { code: 'TOKEN_INVALID' });
  });

  it('inside an environment: the environment for its token (which may not GET environments), the admin living there, global bearers admitted', async () => {
    const shared = await newEnvironment(account, 'SHARED');
    const envToken = await environmentToken(account, shared.code);
    const readOnly = await environmentToken(account, shared.code, ['license.read']);
    const envAdmin = await newUser(account, { role: 'admin' }, { environment: shared.code });
    const global = await l.graph();
    const environment = (await l.api('GET', `/environments/${shared.id}`)).body.data;
    for (const token of [envToken, readOnly]) {
      const reply = await call('GET', `${account.path}/me`, { token, environment: shared.code });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.data).toEqual(environment);
      expect(reply.headers.get('service-environment')).toBe(shared.code);
      expectCode(await call('GET', `${account.path}/environments/${shared.id}`, { token, environment: shared.code }), 403);
    }
    const asEnvAdmin = await call('GET', `${account.path}/me`, { token: envAdmin.token, environment: shared.code });
    expect(asEnvAdmin.body.data).toMatchObject({
      type: 'users',
      id: envAdmin.id,
      relationships: { environment: { data: { type: 'environments', id: shared.id } } },
    });
    // A global license, admitted into a SHARED environment, is still itself there.
    const asLicense = await call('GET', `${account.path}/me`, { ...licenseKey(global.license.attributes.key), environment: shared.code });
    expect(asLicense.body.data).toMatchObject({ type: 'licenses', id: global.license.id });
  });
});

describe.concurrent('activation with the attributes Keygen sends', () => {
  it("takes keygen-go's activation body under License <key>; stores and shows hostname, platform and cores", async () => {
    const g = await l.graph();
    const fingerprint = randomUUID();
    const made = await call('POST', `${account.path}/machines`, {
      ...licenseKey(g.license.attributes.key),
      headers: { 'keygen-version': '1.7' },
      body: sdkActivation(g.license.id, fingerprint),
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.data.attributes).toMatchObject({
      fingerprint,
      name: null,
      hostname: 'build-07.local',
      platform: 'linux/amd64',
      cores: 8,
      ip: null,
      memory: null,
      disk: null,
    });
    expect((await l.api('GET', `/machines/${made.body.data.id}`)).body.data).toEqual(made.body.data);
  });

  it("takes Keygen's ip, memory and disk (bytes) and name; an update changes them, null clears them", async () => {
    const g = await l.graph();
    const attributes = { name: 'Build box', ip: '192.0.2.7', memory: 17_179_869_184, disk: 2 ** 53 - 1, cores: 1 };
    const made = await activate(g.license.id, attributes);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.data.attributes).toMatchObject(attributes);
    const id = made.body.data.id;
    const changed = await l.api('PATCH', `/machines/${id}`, {
      body: doc('machines', { ip: '2001:db8::7', cores: 64, memory: 0, disk: null }),
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.data.attributes).toMatchObject({ name: 'Build box', ip: '2001:db8::7', cores: 64, memory: 0, disk: null });
    expect((await l.api('GET', `/machines/${id}`)).body.data.attributes).toEqual(changed.body.data.attributes);
    const listed = await l.api('GET', `/machines?license=${g.license.id}`);
    expect(listed.body.data.find((machine: { id: string }) => machine.id === id).attributes.cores).toBe(64);
  });

  it('cores is an integer of at least 1, memory and disk integers of at least 0 (else 422 <ATTRIBUTE>_INVALID); a string is not a number (400)', async () => {
    const g = await l.graph();
    const refused: [Record<string, unknown>, string][] = [
      [{ cores: 0 }, 'cores'],
      [{ cores: -4 }, 'cores'],
      [{ cores: 1.5 }, 'cores'],
      [{ cores: 2_147_483_648 }, 'cores'],
      [{ memory: -1 }, 'memory'],
      [{ memory: 0.5 }, 'memory'],
      [{ disk: 2 ** 53 }, 'disk'],
      [{ disk: -1 }, 'disk'],
    ];
    for (const [attributes, attribute] of refused) {
      expectError(await activate(g.license.id, attributes), 422, {
        code: `${attribute.toUpperCase()}_INVALID`,
        source: { pointer: `/data/attributes/${attribute}` },
      });
      expectError(await l.api('PATCH', `/machines/${g.machine.id}`, { body: doc('machines', attributes) }), 422, {
        code: `${attribute.toUpperCase()}_INVALID`,
      });
    }
    for (const attribute of ['cores', 'memory', 'disk']) {
      expectError(await activate(g.license.id, { [attribute]: '4' }), 400, {
        code: 'PARAMETER_INVALID',
        source: { pointer: `/data/attributes/${attribute}` },
      });
    }
    for (const attribute of ['ip', 'hostname', 'platform']) {
      expectError(await activate(g.license.id, { [attribute]: 'x'.repeat(256) }), 422, {
        code: `${attribute.toUpperCase()}_TOO_LONG`,
        source: { pointer: `/data/attributes/${attribute}` },
      });
    }
    const edges = await activate(g.license.id, { cores: 2_147_483_647, memory: 0, disk: 0, ip: 'x'.repeat(255), hostname: '' });
    expect(edges.status, JSON.stringify(edges.body)).toBe(201);
    const nulls = await activate(g.license.id, { cores: null, memory: null, disk: null, ip: null });
    expect(nulls.status).toBe(201);
    // Nothing was written by a refused activation.
    expect(ids(await l.api('GET', `/licenses/${g.license.id}/machines`))).toHaveLength(3);
  });
});

describe.concurrent('machines named by fingerprint', () => {
  it('a license bearer names its own machine by fingerprint, whatever other licenses hold it; never another license’s', async () => {
    const g = await l.graph();
    const other = await l.graph();
    const fingerprint = `AA:BB:CC ${randomUUID()}`;
    const own = await activate(g.license.id, { fingerprint });
    await activate(other.license.id, { fingerprint });
    const lonely = await activate(other.license.id, {});
    for (const options of [licenseKey(g.license.attributes.key), { token: await l.licenseToken(g.license.id) }]) {
      const found = await l.api('GET', `/machines/${path(fingerprint)}`, options);
      expect(found.status, JSON.stringify(found.body)).toBe(200);
      expect(found.body.data).toEqual(own.body.data);
      expect((await l.api('GET', `/machines/${path(fingerprint)}/license`, options)).body.data.id).toBe(g.license.id);
      expectCode(await l.api('GET', `/machines/${path(lonely.body.data.attributes.fingerprint)}`, options), 404, 'NOT_FOUND');
    }
    // keygen-go's license.Deactivate(fingerprint)
    expect((await l.api('DELETE', `/machines/${path(fingerprint)}`, licenseKey(g.license.attributes.key))).status).toBe(204);
    expectCode(await l.api('GET', `/machines/${own.body.data.id}`), 404);
  });

  it('other bearers name a machine among all they see; a fingerprint two of them hold is ambiguous (404) until one goes', async () => {
    const user = await newUser(account);
    const mine = await l.graph({ owner: user.id });
    const theirs = await l.graph();
    const fingerprint = `host-${randomUUID()}`;
    const first = await activate(mine.license.id, { fingerprint });
    const second = await activate(theirs.license.id, { fingerprint });
    const productToken = await l.productToken(mine.product.id);
    // Each of these sees one of the two.
    for (const token of [user.token, productToken]) {
      const found = await l.api('GET', `/machines/${fingerprint}`, { token });
      expect(found.status, JSON.stringify(found.body)).toBe(200);
      expect(found.body.data.id).toBe(first.body.data.id);
      expect(ids(await l.api('GET', `/machines/${fingerprint}/components`, { token }))).toEqual([]);
    }
    // The admin sees both: ambiguous.
    expectError(await l.api('GET', `/machines/${fingerprint}`), 404, { code: 'NOT_FOUND' });
    expectCode(await l.api('PATCH', `/machines/${fingerprint}`, { body: doc('machines', { name: 'Which?' }) }), 404);
    expectCode(await l.api('DELETE', `/machines/${fingerprint}`), 404);
    expect((await l.api('GET', `/machines/${second.body.data.id}`)).body.data.attributes.name).toBeNull();
    // Deactivated, the other is the only one.
    expect((await l.api('DELETE', `/machines/${second.body.data.id}`)).status).toBe(204);
    expect((await l.api('GET', `/machines/${fingerprint}`)).body.data.id).toBe(first.body.data.id);
    // A deleted license takes its machines out of the lookup too.
    await activate(theirs.license.id, { fingerprint });
    expectCode(await l.api('GET', `/machines/${fingerprint}`), 404);
    expect((await l.api('DELETE', `/licenses/${theirs.license.id}`)).status).toBe(204);
    expect((await l.api('GET', `/machines/${fingerprint}`)).body.data.id).toBe(first.body.data.id);
    // What went left no entry behind.
    expect((await entriesOf(fingerprint)).map((entry) => entry.machineId)).toEqual([first.body.data.id]);
  });

  it('each machine has one entry under its fingerprint, carrying its environment for the purge, and gone with it', async () => {
    const isolated = await newEnvironment(account, 'ISOLATED');
    const token = await environmentToken(account, isolated.code);
    const g = await l.graph({ token, environment: isolated.code });
    const fingerprint = g.machine.attributes.fingerprint as string;
    expect(await entriesOf(fingerprint)).toEqual([
      expect.objectContaining({
        machineId: g.machine.id,
        environmentId: isolated.id,
        ENVPK: environmentMembership(account.id, isolated.id),
      }),
    ]);
    const found = await l.api('GET', `/machines/${fingerprint}`, { token, environment: isolated.code });
    expect(found.body.data.id).toBe(g.machine.id);
    expectCode(await l.api('GET', `/machines/${fingerprint}`), 404);
    expect((await l.api('DELETE', `/machines/${fingerprint}`, { token, environment: isolated.code })).status).toBe(204);
    expect(await entriesOf(fingerprint)).toEqual([]);
  });

  it('a fingerprint the bearer cannot see is not found: another user’s, another product’s, another environment’s', async () => {
    const user = await newUser(account);
    const stranger = await newUser(account);
    const g = await l.graph({ owner: user.id });
    const otherProduct = await l.graph();
    const isolated = await newEnvironment(account, 'ISOLATED');
    const envToken = await environmentToken(account, isolated.code);
    const fingerprint = `seen-${randomUUID()}`;
    await activate(g.license.id, { fingerprint });
    expectCode(await l.api('GET', `/machines/${fingerprint}`, { token: stranger.token }), 404, 'NOT_FOUND');
    expectCode(await l.api('GET', `/machines/${fingerprint}`, { token: await l.productToken(otherProduct.product.id) }), 404);
    expectCode(await l.api('GET', `/machines/${fingerprint}`, licenseKey(otherProduct.license.attributes.key)), 404);
    expectCode(await l.api('GET', `/machines/${fingerprint}`, { token: envToken, environment: isolated.code }), 404);
    expectCode(await l.api('GET', `/machines/no-such-${randomUUID()}`), 404);
    expect((await l.api('GET', `/machines/${fingerprint}`, { token: user.token })).status).toBe(200);
  });

  it('PATCH by fingerprint: data.id may repeat the machine’s own id (409 ID_MISMATCH for any other); DELETE by fingerprint', async () => {
    const g = await l.graph();
    const fingerprint = `patch-${randomUUID()}`;
    const made = (await activate(g.license.id, { fingerprint })).body.data;
    const patch = (body: unknown) => l.api('PATCH', `/machines/${fingerprint}`, { body });
    const plain = await patch(doc('machines', { name: 'Renamed' }));
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    expect(plain.body.data).toMatchObject({ id: made.id, attributes: { name: 'Renamed', fingerprint } });
    const withId = await patch({ data: { type: 'machines', id: made.id.toUpperCase(), attributes: { cores: 2 } } });
    expect(withId.status, JSON.stringify(withId.body)).toBe(200);
    expect(withId.body.data.attributes.cores).toBe(2);
    for (const id of [randomUUID(), fingerprint]) {
      expectError(await patch({ data: { type: 'machines', id, attributes: { name: 'No' } } }), 409, {
        code: 'ID_MISMATCH',
        source: { pointer: '/data/id' },
      });
    }
    // By id, data.id is the path's as before.
    expectError(
      await l.api('PATCH', `/machines/${made.id}`, { body: { data: { type: 'machines', id: randomUUID(), attributes: {} } } }),
      409,
      { code: 'ID_MISMATCH' },
    );
    expect((await l.api('GET', `/machines/${made.id}`)).body.data.attributes.name).toBe('Renamed');
    expect((await l.api('DELETE', `/machines/${fingerprint}`)).status).toBe(204);
    expectCode(await l.api('GET', `/machines/${fingerprint}`), 404);
  });

  it('a UUID names a machine by id first, then by fingerprint', async () => {
    const g = await l.graph();
    const fingerprint = randomUUID();
    const byFingerprint = (await activate(g.license.id, { fingerprint })).body.data;
    expect((await l.api('GET', `/machines/${fingerprint}`)).body.data.id).toBe(byFingerprint.id);
    // A machine whose fingerprint is another machine's id: the id wins.
    const shadow = (await activate(g.license.id, { fingerprint: g.machine.id })).body.data;
    expect((await l.api('GET', `/machines/${g.machine.id}`)).body.data.id).toBe(g.machine.id);
    // Once that machine is gone, the UUID names the one holding it as fingerprint.
    expect((await l.api('DELETE', `/machines/${g.machine.id}`)).status).toBe(204);
    expect((await l.api('GET', `/machines/${g.machine.id}`)).body.data.id).toBe(shadow.id);
  });
});

describe.concurrent('licenses named by key', () => {
  it('GET, PATCH and DELETE /licenses/<key>, and its relationship routes', async () => {
    const owner = await newUser(account);
    const g = await l.graph({ owner: owner.id });
    const key = g.license.attributes.key as string;
    const found = await l.api('GET', `/licenses/${path(key)}`);
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(found.body.data).toEqual((await l.api('GET', `/licenses/${g.license.id}`)).body.data);
    expect(ids(await l.api('GET', `/licenses/${path(key)}/machines`))).toEqual([g.machine.id]);
    expect((await l.api('GET', `/licenses/${path(key)}/policy`)).body.data.id).toBe(g.policy.id);
    expect((await l.api('GET', `/licenses/${path(key)}/product`)).body.data.id).toBe(g.product.id);
    expect((await l.api('GET', `/licenses/${path(key)}/owner`)).body.data.id).toBe(owner.id);

    const renamed = await l.api('PATCH', `/licenses/${path(key)}`, {
      body: { data: { type: 'licenses', id: g.license.id, attributes: { name: 'By key' } } },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.data).toMatchObject({ id: g.license.id, attributes: { name: 'By key', key } });
    expectError(
      await l.api('PATCH', `/licenses/${path(key)}`, { body: { data: { type: 'licenses', id: key, attributes: { name: 'No' } } } }),
      409,
      { code: 'ID_MISMATCH', source: { pointer: '/data/id' } },
    );
    expect((await l.api('DELETE', `/licenses/${path(key)}`)).status).toBe(204);
    expectCode(await l.api('GET', `/licenses/${g.license.id}`), 404);
    expectCode(await l.api('GET', `/licenses/${path(key)}`), 404);
  });

  it('by key as by id, a bearer reaches only what it sees: itself, its own, its product’s', async () => {
    const owner = await newUser(account);
    const stranger = await newUser(account);
    const g = await l.graph({ owner: owner.id });
    const other = await l.graph();
    const key = path(g.license.attributes.key);
    for (const options of [licenseKey(g.license.attributes.key), { token: owner.token }, { token: await l.productToken(g.product.id) }]) {
      const found = await l.api('GET', `/licenses/${key}`, options);
      expect(found.status, JSON.stringify(found.body)).toBe(200);
      expect(found.body.data.id).toBe(g.license.id);
    }
    for (const options of [
      licenseKey(other.license.attributes.key),
      { token: stranger.token },
      { token: await l.productToken(other.product.id) },
    ]) {
      expectError(await l.api('GET', `/licenses/${key}`, options), 404, { code: 'NOT_FOUND' });
    }
    // A license bearer may read itself by key, not change itself.
    expectCode(
      await l.api('PATCH', `/licenses/${key}`, { ...licenseKey(g.license.attributes.key), body: doc('licenses', { name: 'x' }) }),
      403,
    );
  });

  it('a UUID names a license by id first, then by key', async () => {
    const g = await l.graph();
    const uuidKey = randomUUID();
    const byKey = await l.license(g.policy.id, { key: uuidKey });
    expect((await l.api('GET', `/licenses/${uuidKey}`)).body.data.id).toBe(byKey.id);
    const shadow = await l.license(g.policy.id, { key: g.license.id });
    expect((await l.api('GET', `/licenses/${g.license.id}`)).body.data.id).toBe(g.license.id);
    expect((await l.api('DELETE', `/licenses/${g.license.id}`)).status).toBe(204);
    expect((await l.api('GET', `/licenses/${g.license.id}`)).body.data.id).toBe(shadow.id);
  });
});

describe.concurrent('headers Keygen’s SDKs send', () => {
  it('Keygen-Version is accepted and changes nothing', async () => {
    const g = await l.graph();
    const headers = { 'keygen-version': '1.7' };
    const me = await call('GET', `${account.path}/me`, { ...licenseKey(g.license.attributes.key), headers });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(g.license.id);
    const validation = await call('POST', `${account.path}/licenses/${g.license.id}/actions/validate`, {
      ...licenseKey(g.license.attributes.key),
      headers,
      body: { meta: { scope: { fingerprint: g.machine.attributes.fingerprint } } },
    });
    expect(validation.status, JSON.stringify(validation.body)).toBe(200);
    expect(validation.body.meta).toMatchObject({ valid: true, code: 'VALID' });
    const made = await call('POST', `${account.path}/machines`, {
      token: account.adminToken,
      headers: { 'keygen-version': 'not-a-version' },
      body: sdkActivation(g.license.id, randomUUID()),
    });
    expect(made.status).toBe(201);
    const read = await call('GET', `${account.path}/machines/${g.machine.id}`, { token: account.adminToken, headers });
    expect(read.body.data).toEqual(g.machine);
  });
});
