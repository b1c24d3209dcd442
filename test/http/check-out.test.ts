/**
 * Check-outs (docs/rules.md §20): license and machine files over HTTP, each read back with the
 * tests' own reader (test/support/certificates.ts: tweetnacl and WebCrypto, proven on Keygen's
 * example file) under the account's published key; the parameters and their faults; the includes
 * and who may read them; who may check out; lastCheckOut and the events; the file itself by GET.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLicenseFile, VerificationError } from '../../docs/examples/verify.mjs';
import { type ParsedCertificate, parseCertificate, publicKeyFromAccount, readDataset, verifyCertificate } from '../support/certificates.ts';
import { type CallOptions, call, environmentToken, expectError, newEnvironment, newUser, type TestAccount } from '../support/client.ts';
import { doc, eventPayloads, type licensing, listeningAccount } from '../support/licensing.ts';
import type { Receiver } from '../support/receiver.ts';

let account: TestAccount;
let receiver: Receiver;
/** The account's Ed25519 public key, hex, as GET /accounts/<id> publishes it. */
let publicKey: string;
let l: ReturnType<typeof licensing>;

type Graph = Awaited<ReturnType<ReturnType<typeof licensing>['graph']>>;
type Owner = Awaited<ReturnType<typeof newUser>>;

beforeAll(async () => {
  ({ account, l, receiver } = await listeningAccount());
  const read = await call('GET', account.path, { token: account.adminToken });
  publicKey = publicKeyFromAccount(read.body.data.meta.keys.ed25519);
  expect(publicKey).toMatch(/^[0-9a-f]{64}$/);
});
afterAll(() => receiver.close());

/** A fresh graph (product, policy, license, machine) whose license `owner` owns. */
async function ownedGraph(license: Record<string, unknown> = {}, options: Pick<CallOptions, 'environment' | 'token'> = {}) {
  const owner = await newUser(account, {}, options);
  const graph = await l.graph({ ...options, owner: owner.id, license });
  return { ...graph, owner };
}

const checkOut = (type: 'licenses' | 'machines', id: string, options: CallOptions & { query?: string } = {}) =>
  call('POST', `${account.path}/${type}/${id}/actions/check-out${options.query ? `?${options.query}` : ''}`, {
    token: account.adminToken,
    ...options,
  });

/** The file of a 200 answer, parsed and checked against the account's key. */
function fileOf(reply: { status: number; body: any }): ParsedCertificate {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  const parsed = parseCertificate(reply.body.data.attributes.certificate);
  expect(verifyCertificate(parsed, publicKey)).toBe(true);
  return parsed;
}

/** The same character swapped for another of the base64 alphabet. */
const flipped = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;

const seconds = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 1000;

describe('license files', () => {
  let g: Graph & { owner: Owner };
  beforeAll(async () => {
    g = await ownedGraph();
  });

  it('plain by default: a month, verified with the account key; its data is the license as GET shows it afterwards', async () => {
    const before = await l.api('GET', `/licenses/${g.license.id}`);
    expect(before.body.data.attributes.lastCheckOut).toBeNull();
    const reply = await checkOut('licenses', g.license.id);
    const parsed = fileOf(reply);
    const file = reply.body.data;
    expect(file.type).toBe('license-files');
    expect(file.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(file.id).not.toBe(g.license.id);
    expect(file).not.toHaveProperty('links');
    expect(file.attributes).toMatchObject({ algorithm: 'base64+ed25519', includes: [], ttl: 2629746 });
    expect(seconds(file.attributes.issued, file.attributes.expiry)).toBe(2629746);
    expect(file.relationships).toEqual({
      account: { links: { related: account.path }, data: { type: 'accounts', id: account.id } },
      environment: { data: null },
      license: { links: { related: `${account.path}/licenses/${g.license.id}` }, data: { type: 'licenses', id: g.license.id } },
    });
    expect(parsed).toMatchObject({ kind: 'license', alg: 'base64+ed25519' });
    const dataset = await readDataset(parsed);
    expect(Object.keys(dataset)).toEqual(['data', 'included', 'meta']);
    expect(dataset.meta).toEqual({ issued: file.attributes.issued, expiry: file.attributes.expiry, ttl: 2629746 });
    expect(dataset.included).toEqual([]);
    const after = await l.api('GET', `/licenses/${g.license.id}`);
    expect(after.body.data.attributes.lastCheckOut).toBe(file.attributes.issued);
    expect(dataset.data).toEqual(after.body.data);
    expect(after.body.data.attributes.updated).toBe(before.body.data.attributes.updated);
  });

  it('encrypted (meta, query, or the algorithm alone): AES-256-GCM under SHA-256 of the license key', async () => {
    const key = g.license.attributes.key as string;
    for (const asked of [{ body: { meta: { encrypt: true } } }, { query: 'encrypt=1' }, { query: 'algorithm=aes-256-gcm%2Bed25519' }]) {
      const reply = await checkOut('licenses', g.license.id, asked);
      const parsed = fileOf(reply);
      expect(reply.body.data.attributes.algorithm).toBe('aes-256-gcm+ed25519');
      expect(parsed.alg).toBe('aes-256-gcm+ed25519');
      const dataset = await readDataset(parsed, key);
      expect(dataset.data).toMatchObject({ type: 'licenses', id: g.license.id, attributes: { key } });
      await expect(readDataset(parsed, `${key}x`)).rejects.toThrow();
    }
  });

  it('fails verification once its enc or its sig is changed', async () => {
    const parsed = fileOf(await checkOut('licenses', g.license.id));
    expect(verifyCertificate({ ...parsed, enc: flipped(parsed.enc, 20) }, publicKey)).toBe(false);
    expect(verifyCertificate({ ...parsed, sig: flipped(parsed.sig, 20) }, publicKey)).toBe(false);
    expect(verifyCertificate({ ...parsed, kind: 'machine' }, publicKey)).toBe(false);
  });

  it('is checked out whatever the license state: the file carries status and expiry', async () => {
    const past = new Date(Date.now() - 86_400_000).toISOString();
    for (const [attributes, status] of [
      [{ suspended: true }, 'SUSPENDED'],
      [{ expiry: past }, 'EXPIRED'],
    ] as const) {
      const lic = await l.license(g.policy.id, attributes);
      const dataset = await readDataset(fileOf(await checkOut('licenses', lic.id)));
      expect(dataset.data.attributes.status).toBe(status);
    }
  });
});

describe('machine files', () => {
  it('plain and encrypted, the encrypted one under SHA-256 of the license key followed by the fingerprint', async () => {
    const g = await ownedGraph();
    const secret = `${g.license.attributes.key}${g.machine.attributes.fingerprint}`;
    const plain = await checkOut('machines', g.machine.id);
    const file = plain.body.data;
    expect(file.type).toBe('machine-files');
    expect(file.relationships.license.data).toEqual({ type: 'licenses', id: g.license.id });
    expect(file.relationships.machine).toEqual({
      links: { related: `${account.path}/machines/${g.machine.id}` },
      data: { type: 'machines', id: g.machine.id },
    });
    const parsed = fileOf(plain);
    expect(parsed).toMatchObject({ kind: 'machine', alg: 'base64+ed25519' });
    const dataset = await readDataset(parsed);
    const after = await l.api('GET', `/machines/${g.machine.id}`);
    expect(after.body.data.attributes.lastCheckOut).toBe(file.attributes.issued);
    expect(dataset.data).toEqual(after.body.data);

    const encrypted = fileOf(await checkOut('machines', g.machine.id, { query: 'encrypt=true' }));
    expect(encrypted).toMatchObject({ kind: 'machine', alg: 'aes-256-gcm+ed25519' });
    expect((await readDataset(encrypted, secret)).data).toMatchObject({ type: 'machines', id: g.machine.id });
    await expect(readDataset(encrypted, g.license.attributes.key)).rejects.toThrow();
    expect(verifyCertificate({ ...encrypted, enc: flipped(encrypted.enc, 5) }, publicKey)).toBe(false);
  });

  it("reads Keygen's SDK request: an empty document, the options in the query", async () => {
    const g = await ownedGraph();
    const reply = await checkOut('machines', g.machine.id, {
      query: 'encrypt=true&include=license,license.entitlements',
      body: {},
      authorization: `License ${g.license.attributes.key}`,
    });
    const parsed = fileOf(reply);
    expect(reply.body.data.attributes.includes).toEqual(['license', 'license.entitlements']);
    const dataset = await readDataset(parsed, `${g.license.attributes.key}${g.machine.attributes.fingerprint}`);
    expect(dataset.included.map((record: any) => `${record.type}/${record.id}`)).toEqual([`licenses/${g.license.id}`]);
  });
});

describe('the client recipe (docs/examples/verify.mjs)', () => {
  it('reads license and machine files, plain and encrypted, with the published key; refuses a forged or clock-rolled one', async () => {
    const g = await ownedGraph();
    const published = (await call('GET', account.path, { token: account.adminToken })).body.data.meta.keys.ed25519 as string;
    const licenseKey = g.license.attributes.key as string;
    const fingerprint = g.machine.attributes.fingerprint as string;
    const certificate = async (type: 'licenses' | 'machines', id: string, query?: string) =>
      (await checkOut(type, id, { query })).body.data.attributes.certificate as string;

    const plain = readLicenseFile(await certificate('licenses', g.license.id), { publicKey: published });
    expect(plain).toMatchObject({ kind: 'license', status: 'VALID', data: { type: 'licenses', id: g.license.id } });
    const sealed = readLicenseFile(await certificate('licenses', g.license.id, 'encrypt=true'), { publicKey: published, licenseKey });
    expect(sealed.data.attributes.key).toBe(licenseKey);
    const machine = readLicenseFile(await certificate('machines', g.machine.id, 'encrypt=true&include=license'), {
      publicKey: published,
      licenseKey,
      fingerprint,
    });
    expect(machine).toMatchObject({ kind: 'machine', status: 'VALID', data: { id: g.machine.id }, included: [{ id: g.license.id }] });
    // A year before the file was issued: the client's clock was set back.
    const rolledBack = new Date(Date.parse(plain.meta.issued) - 365 * 86_400_000);
    expect(readLicenseFile(await certificate('licenses', g.license.id), { publicKey: published, now: rolledBack }).status).toBe(
      'CLOCK_ROLLED_BACK',
    );
    const text = await certificate('licenses', g.license.id);
    const body = text.split('\n').slice(1, -2).join('');
    const doc = JSON.parse(Buffer.from(body, 'base64').toString('utf8'));
    const forged = Buffer.from(JSON.stringify({ ...doc, enc: flipped(doc.enc, 3) })).toString('base64');
    expect(() =>
      readLicenseFile(`-----BEGIN LICENSE FILE-----\n${forged}\n-----END LICENSE FILE-----\n`, { publicKey: published }),
    ).toThrow(VerificationError);
  });
});

describe('time to live', () => {
  let licenseId: string;
  beforeAll(async () => {
    licenseId = (await ownedGraph()).license.id;
  });

  it('takes an hour or more; null (meta) or empty (query) never expires; meta wins over the query', async () => {
    const hour = (await checkOut('licenses', licenseId, { query: 'ttl=3600' })).body.data.attributes;
    expect(hour.ttl).toBe(3600);
    expect(seconds(hour.issued, hour.expiry)).toBe(3600);
    for (const asked of [{ body: { meta: { ttl: null } } }, { query: 'ttl=' }]) {
      const reply = await checkOut('licenses', licenseId, asked);
      expect(reply.body.data.attributes).toMatchObject({ ttl: null, expiry: null });
      expect((await readDataset(fileOf(reply))).meta).toMatchObject({ ttl: null, expiry: null });
    }
    const won = await checkOut('licenses', licenseId, { query: 'ttl=10', body: { meta: { ttl: 7200 } } });
    expect(won.body.data.attributes.ttl).toBe(7200);
  });

  it('refuses less than an hour, or what is no whole number of seconds: 400 CHECKOUT_TTL_INVALID', async () => {
    const expected = { code: 'CHECKOUT_TTL_INVALID', source: { parameter: 'ttl' } };
    expectError(await checkOut('licenses', licenseId, { query: 'ttl=3599' }), 400, expected);
    expectError(await checkOut('licenses', licenseId, { query: 'ttl=abc' }), 400, expected);
    expectError(await checkOut('licenses', licenseId, { query: 'ttl=-1' }), 400, expected);
    expectError(await checkOut('licenses', licenseId, { body: { meta: { ttl: 3599.5 } } }), 400, expected);
    expectError(await checkOut('machines', randomUUID(), { body: { meta: { ttl: 0 } } }), 400, expected);
  });
});

describe('faults of the request', () => {
  let g: Graph & { owner: Owner };
  beforeAll(async () => {
    g = await ownedGraph();
  });

  it('400 CHECKOUT_ALGORITHM_INVALID: an unknown algorithm, or one that contradicts encrypt', async () => {
    const expected = { code: 'CHECKOUT_ALGORITHM_INVALID', source: { parameter: 'algorithm' } };
    expectError(await checkOut('licenses', g.license.id, { query: 'algorithm=aes-128-gcm%2Bed25519' }), 400, expected);
    expectError(await checkOut('licenses', g.license.id, { body: { meta: { algorithm: 'base64+rsa-sha256' } } }), 400, expected);
    expectError(await checkOut('machines', g.machine.id, { query: 'encrypt=true&algorithm=base64%2Bed25519' }), 400, expected);
    expectError(
      await checkOut('machines', g.machine.id, { body: { meta: { encrypt: false, algorithm: 'aes-256-gcm+ed25519' } } }),
      400,
      expected,
    );
  });

  it("400 CHECKOUT_INCLUDE_INVALID: anything outside the kind's includes", async () => {
    const expected = { code: 'CHECKOUT_INCLUDE_INVALID', source: { parameter: 'include' } };
    expectError(await checkOut('licenses', g.license.id, { query: 'include=license' }), 400, expected);
    expectError(await checkOut('licenses', g.license.id, { body: { meta: { include: ['product', 'user'] } } }), 400, expected);
    expectError(await checkOut('machines', g.machine.id, { query: 'include=product' }), 400, expected);
    expectError(await checkOut('machines', g.machine.id, { body: { meta: { include: ['license.machines'] } } }), 400, expected);
  });

  it('400 for a value of the wrong shape: encrypt in the query, members of meta', async () => {
    expectError(await checkOut('licenses', g.license.id, { query: 'encrypt=yes' }), 400, {
      code: 'PARAMETERS_INVALID',
      source: { parameter: 'encrypt' },
    });
    expectError(await checkOut('licenses', g.license.id, { body: { meta: { encrypt: 'true' } } }), 400, {
      code: 'PARAMETER_INVALID',
      source: { pointer: '/meta/encrypt' },
    });
    expectError(await checkOut('licenses', g.license.id, { body: { meta: { fingerprint: 'x' } } }), 400, {
      code: 'PARAMETER_INVALID',
      source: { pointer: '/meta/fingerprint' },
    });
  });

  it('writes nothing and emits nothing when refused', async () => {
    const fresh = await ownedGraph();
    const licenseToken = await l.licenseToken(fresh.license.id);
    expectError(await checkOut('licenses', fresh.license.id, { query: 'ttl=1' }), 400, { code: 'CHECKOUT_TTL_INVALID' });
    expectError(await checkOut('licenses', fresh.license.id, { query: 'include=owner', token: licenseToken }), 403);
    expectError(await checkOut('machines', fresh.machine.id, { query: 'include=license.owner', token: licenseToken }), 403);
    expect((await l.api('GET', `/licenses/${fresh.license.id}`)).body.data.attributes.lastCheckOut).toBeNull();
    expect((await l.api('GET', `/machines/${fresh.machine.id}`)).body.data.attributes.lastCheckOut).toBeNull();
    expect(await eventsAbout('license.checked-out', fresh.license.id)).toEqual([]);
    expect(await eventsAbout('machine.checked-out', fresh.machine.id)).toEqual([]);
  });
});

/** The payloads of the account's events of `kind` about the record `id`. */
const eventsAbout = (kind: string, id: string) => eventPayloads(account, kind, id);

/** `type/id` of each included record, in order. */
const refsOf = (dataset: any) => dataset.included.map((record: any) => `${record.type}/${record.id}`);

describe('includes', () => {
  it('license files: entitlements (none held), product, policy, owner, each as GET shows it', async () => {
    const g = await ownedGraph();
    const reply = await checkOut('licenses', g.license.id, { query: 'include=entitlements,product,policy,owner,product' });
    expect(reply.body.data.attributes.includes).toEqual(['entitlements', 'product', 'policy', 'owner']);
    const dataset = await readDataset(fileOf(reply));
    expect(dataset.included).toEqual([
      (await l.api('GET', `/products/${g.product.id}`)).body.data,
      (await l.api('GET', `/policies/${g.policy.id}`)).body.data,
      (await l.api('GET', `/users/${g.owner.id}`)).body.data,
    ]);
  });

  it("entitlements: the license's effective set (its policy's and its own), in license and machine files alike", async () => {
    const g = await ownedGraph();
    const entitlement = async () => {
      const code = `feature-${randomUUID().slice(0, 8)}`;
      const made = await l.api('POST', '/entitlements', { body: doc('entitlements', { name: code, code }) });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      return made.body.data.id as string;
    };
    const [ofPolicy, ofLicense] = [await entitlement(), await entitlement()];
    const attach = (path: string, id: string) => l.api('POST', `${path}/entitlements`, { body: { data: [{ type: 'entitlements', id }] } });
    expect((await attach(`/policies/${g.policy.id}`, ofPolicy)).status).toBe(200);
    expect((await attach(`/licenses/${g.license.id}`, ofLicense)).status).toBe(200);
    const effective = (await l.api('GET', `/licenses/${g.license.id}/entitlements`)).body.data;
    expect(effective.map((e: { id: string }) => e.id).sort()).toEqual([ofPolicy, ofLicense].sort());

    const licenseFile = await readDataset(fileOf(await checkOut('licenses', g.license.id, { query: 'include=entitlements' })));
    // The same records, in whatever order the set gives them.
    expect(licenseFile.included).toHaveLength(2);
    expect(licenseFile.included).toEqual(expect.arrayContaining(effective));
    const machineFile = await readDataset(fileOf(await checkOut('machines', g.machine.id, { query: 'include=license.entitlements' })));
    expect(machineFile.included).toHaveLength(3);
    expect(machineFile.included[0]).toMatchObject({ type: 'licenses', id: g.license.id });
    expect(machineFile.included.slice(1)).toEqual(expect.arrayContaining(effective));
  });

  it('the environment of a record that has one; nothing for a global one', async () => {
    const environment = await newEnvironment(account, 'ISOLATED');
    const inside = await l.graph({ environment: environment.code });
    const reply = await checkOut('licenses', inside.license.id, {
      environment: environment.code,
      body: { meta: { include: ['environment'] } },
    });
    expect(reply.body.data.relationships.environment.data).toEqual({ type: 'environments', id: environment.id });
    const dataset = await readDataset(fileOf(reply));
    expect(dataset.included).toEqual([(await l.api('GET', `/environments/${environment.id}`)).body.data]);
    const machine = await readDataset(
      fileOf(await checkOut('machines', inside.machine.id, { environment: environment.code, query: 'include=environment' })),
    );
    expect(refsOf(machine)).toEqual([`environments/${environment.id}`]);
    const global = await ownedGraph();
    expect((await readDataset(fileOf(await checkOut('licenses', global.license.id, { query: 'include=environment' })))).included).toEqual(
      [],
    );
  });

  it('machine files: the license and what it names (a path includes its way), components, the owner; each once, in the order asked', async () => {
    const g = await ownedGraph();
    const component = await l.component(g.machine.id);
    const reply = await checkOut('machines', g.machine.id, {
      body: {
        meta: { include: ['license.product', 'components', 'owner', 'license', 'license.policy', 'license.owner', 'license.entitlements'] },
      },
    });
    const dataset = await readDataset(fileOf(reply));
    expect(refsOf(dataset)).toEqual([
      `licenses/${g.license.id}`,
      `products/${g.product.id}`,
      `components/${component.id}`,
      `users/${g.owner.id}`,
      `policies/${g.policy.id}`,
    ]);
    expect(dataset.included[0]).toEqual((await l.api('GET', `/licenses/${g.license.id}`)).body.data);
    expect(dataset.included[2]).toEqual((await l.api('GET', `/components/${component.id}`)).body.data);
  });

  it('403 for an include the bearer may not read', async () => {
    const g = await ownedGraph();
    const licenseToken = await l.licenseToken(g.license.id);
    const productToken = await l.productToken(g.product.id);
    expectError(await checkOut('licenses', g.license.id, { token: licenseToken, query: 'include=owner' }), 403);
    expectError(await checkOut('licenses', g.license.id, { token: productToken, query: 'include=owner' }), 403);
    expectError(await checkOut('machines', g.machine.id, { token: licenseToken, query: 'include=license.owner' }), 403);
    // Environments are the account's own admins' to read: an environment's own token may not include one.
    const environment = await newEnvironment(account, 'ISOLATED');
    const inside = await l.graph({ environment: environment.code });
    const token = await environmentToken(account, environment.code);
    expectError(await checkOut('licenses', inside.license.id, { token, environment: environment.code, query: 'include=environment' }), 403);
    expect((await checkOut('licenses', inside.license.id, { token, environment: environment.code, query: 'include=product' })).status).toBe(
      200,
    );
  });
});

describe('who may check out', () => {
  it('administrators, the environment, the product, the license (token and key) and the owning user', async () => {
    const environment = await newEnvironment(account, 'ISOLATED');
    const g = await ownedGraph({}, { environment: environment.code });
    const bearers: Record<string, CallOptions> = {
      admin: { token: account.adminToken },
      environment: { token: await environmentToken(account, environment.code) },
      product: { token: await l.productToken(g.product.id, { environment: environment.code }) },
      licenseToken: { token: await l.licenseToken(g.license.id, { environment: environment.code }) },
      licenseKey: { authorization: `License ${g.license.attributes.key}` },
      owner: { token: g.owner.token },
    };
    for (const [name, bearer] of Object.entries(bearers)) {
      for (const [type, id] of [
        ['licenses', g.license.id],
        ['machines', g.machine.id],
      ] as const) {
        const options = { ...bearer, environment: environment.code };
        const reply = await checkOut(type, id, options);
        expect(reply.status, `${name} ${type}: ${JSON.stringify(reply.body)}`).toBe(200);
        // The data is the record as this bearer reads it.
        const dataset = await readDataset(fileOf(reply));
        const read = await call('GET', `${account.path}/${type}/${id}`, options);
        expect(dataset.data, `${name} ${type}`).toEqual(read.body.data);
      }
    }
  });

  it("403 for the owner of a protected license, its machines' too; 404 for a bearer who does not see the record", async () => {
    const g = await ownedGraph({ protected: true });
    expectError(await checkOut('licenses', g.license.id, { token: g.owner.token }), 403);
    expectError(await checkOut('machines', g.machine.id, { token: g.owner.token }), 403);
    expect((await checkOut('licenses', g.license.id, { authorization: `License ${g.license.attributes.key}` })).status).toBe(200);
    const other = await newUser(account);
    expectError(await checkOut('licenses', g.license.id, { token: other.token }), 404, { code: 'NOT_FOUND' });
    expectError(await checkOut('machines', g.machine.id, { token: other.token }), 404, { code: 'NOT_FOUND' });
    expectError(await checkOut('licenses', randomUUID()), 404, { code: 'NOT_FOUND' });
    const sibling = await l.license(g.policy.id);
    expectError(await checkOut('licenses', sibling.id, { authorization: `License ${g.license.attributes.key}` }), 404);
  });
});

describe('what a check-out records', () => {
  it('sets lastCheckOut and emits license.checked-out / machine.checked-out with the record', async () => {
    const g = await ownedGraph();
    const license = (await checkOut('licenses', g.license.id)).body.data.attributes;
    const machine = (await checkOut('machines', g.machine.id, { token: g.owner.token })).body.data.attributes;
    const [licenseEvent] = await eventsAbout('license.checked-out', g.license.id);
    expect(licenseEvent.data).toEqual((await l.api('GET', `/licenses/${g.license.id}`)).body.data);
    expect(licenseEvent.data.attributes.lastCheckOut).toBe(license.issued);
    const [machineEvent] = await eventsAbout('machine.checked-out', g.machine.id);
    expect(machineEvent.data).toEqual((await l.api('GET', `/machines/${g.machine.id}`)).body.data);
    expect(machineEvent.data.attributes.lastCheckOut).toBe(machine.issued);
    await receiver.waitFor((deliveries) =>
      ['license.checked-out', 'machine.checked-out'].every((kind) => deliveries.some((d) => d.json?.data?.attributes?.event === kind)),
    );
  });

  it('lastCheckOut is read-only', async () => {
    const g = await ownedGraph();
    expectError(await l.api('PATCH', `/licenses/${g.license.id}`, { body: doc('licenses', { lastCheckOut: null }) }), 400, {
      code: 'PARAMETER_INVALID',
      source: { pointer: '/data/attributes/lastCheckOut' },
    });
  });
});

describe('the file itself (GET)', () => {
  it('answers the certificate as an attachment named <id>.lic, and checks out as POST does', async () => {
    const g = await ownedGraph();
    for (const [type, id, kind] of [
      ['licenses', g.license.id, 'license'],
      ['machines', g.machine.id, 'machine'],
    ] as const) {
      const reply = await call(
        'GET',
        `${account.path}/${type}/${id}/actions/check-out?ttl=7200&include=${type === 'licenses' ? 'product' : 'license'}`,
        {
          token: account.adminToken,
        },
      );
      expect(reply.status, String(reply.body)).toBe(200);
      expect(reply.headers.get('content-type')).toBe('application/octet-stream');
      expect(reply.headers.get('content-disposition')).toBe(`attachment; filename="${id}.lic"`);
      expect(typeof reply.body).toBe('string');
      const parsed = parseCertificate(reply.body);
      expect(parsed.kind).toBe(kind);
      expect(verifyCertificate(parsed, publicKey)).toBe(true);
      const dataset = await readDataset(parsed);
      expect(dataset.meta.ttl).toBe(7200);
      expect(dataset.included).toHaveLength(1);
      const read = await l.api('GET', `/${type}/${id}`);
      expect(dataset.data).toEqual(read.body.data);
      expect(read.body.data.attributes.lastCheckOut).toBe(dataset.meta.issued);
    }
  });

  it('admits a client that accepts only the file; its faults are JSON:API errors', async () => {
    const g = await ownedGraph();
    const path = `${account.path}/licenses/${g.license.id}/actions/check-out`;
    const file = await call('GET', `${path}?encrypt=true`, { token: account.adminToken, headers: { accept: 'application/octet-stream' } });
    expect(file.status).toBe(200);
    const parsed = parseCertificate(file.body);
    expect((await readDataset(parsed, g.license.attributes.key)).data.id).toBe(g.license.id);
    expectError(await call('GET', `${path}?ttl=60`, { token: account.adminToken }), 400, {
      code: 'CHECKOUT_TTL_INVALID',
      source: { parameter: 'ttl' },
    });
    const other = await newUser(account);
    expectError(await call('GET', path, { token: other.token, headers: { accept: 'application/octet-stream' } }), 404, {
      code: 'NOT_FOUND',
    });
    // The document's route answers JSON only.
    expectError(await checkOut('licenses', g.license.id, { headers: { accept: 'application/octet-stream' } }), 400, {
      code: 'MIME_TYPE_INVALID',
      source: { header: 'Accept' },
    });
  });
});
