/**
 * Signed license keys (Keygen's ED25519_SIGN scheme, docs/rules.md §18.2): each key checked the way
 * a client checks it offline, with tweetnacl against the account's published public key.
 */
import { randomUUID } from 'node:crypto';
import nacl from 'tweetnacl';
import { beforeAll, describe, expect, it } from 'vitest';
import { VerificationError, verifySignedKey } from '../../docs/examples/verify.mjs';
import { call, expectError, newAccount, newUser, type TestAccount } from '../support/client.ts';
import { doc, expectCode, licensing, ref } from '../support/licensing.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
let publicKey: Uint8Array;
beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
  const published = (await call('GET', account.path, { token: account.adminToken })).body.data.meta.keys.ed25519 as string;
  publicKey = new Uint8Array(Buffer.from(Buffer.from(published, 'base64').toString('utf8'), 'hex'));
});

const fromBase64url = (text: string) => Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');

/** The parts of a signed key, checked for their form: base64url with its `=` padding. */
function parts(key: string) {
  const match = /^key\/([A-Za-z0-9_-]*={0,2})\.([A-Za-z0-9_-]+={0,2})$/.exec(key);
  if (!match) throw new Error(`not a signed key: ${key.slice(0, 80)}`);
  const [, data = '', signature = ''] = match;
  expect(data.length % 4).toBe(0);
  expect(signature).toHaveLength(88);
  return { data, signature };
}

const verifies = (key: string) => {
  const { data, signature } = parts(key);
  return nacl.sign.detached.verify(Buffer.from(`key/${data}`, 'ascii'), fromBase64url(signature), publicKey);
};

/** The dataset of a signed key that verifies against the account's public key. */
function datasetOf(key: string): string {
  expect(verifies(key), 'the signature verifies').toBe(true);
  return fromBase64url(parts(key).data).toString('utf8');
}

const signedPolicy = async () => l.policy((await l.product()).id, { scheme: 'ED25519_SIGN' });
const validateKey = (key: string) => call('POST', `${account.path}/licenses/actions/validate-key`, { body: { meta: { key } } });

describe.concurrent('policies with a key scheme', () => {
  it('scheme ED25519_SIGN is kept and shown; null is the default', async () => {
    const pol = await signedPolicy();
    expect(pol.attributes.scheme).toBe('ED25519_SIGN');
    expect((await l.api('GET', `/policies/${pol.id}`)).body.data.attributes.scheme).toBe('ED25519_SIGN');
    const p = await l.product();
    expect((await l.policy(p.id)).attributes.scheme).toBeNull();
    expect((await l.policy(p.id, { scheme: null })).attributes.scheme).toBeNull();
  });

  it('an unknown scheme is 422 SCHEME_NOT_ALLOWED; a PATCH naming scheme is 400', async () => {
    const p = await l.product();
    for (const scheme of ['RSA_2048_PKCS1_SIGN', 'ed25519_sign', '']) {
      const reply = await l.api('POST', '/policies', { body: doc('policies', { name: 'x', scheme }, { product: ref('products', p.id) }) });
      expect(expectCode(reply, 422, 'SCHEME_NOT_ALLOWED').source).toEqual({ pointer: '/data/attributes/scheme' });
    }
    const pol = await signedPolicy();
    for (const scheme of ['ED25519_SIGN', null]) {
      expectError(await l.api('PATCH', `/policies/${pol.id}`, { body: doc('policies', { scheme }) }), 400, {
        code: 'PARAMETER_INVALID',
        source: { pointer: '/data/attributes/scheme' },
      });
    }
    expect((await l.api('GET', `/policies/${pol.id}`)).body.data.attributes.scheme).toBe('ED25519_SIGN');
  });
});

describe.concurrent('signed license keys', () => {
  it('by default the dataset is the license as compact JSON, signed with the account key', async () => {
    const pol = await signedPolicy();
    const owner = await newUser(account);
    const expiry = new Date(Date.now() + 86_400_000).toISOString();
    const lic = await l.license(pol.id, { expiry }, { owner: owner.id });
    expect(lic.attributes.scheme).toBe('ED25519_SIGN');
    const dataset = datasetOf(lic.attributes.key);
    expect(dataset).toBe(
      JSON.stringify({
        account: { id: account.id },
        product: { id: pol.relationships.product.data.id },
        policy: { id: pol.id, duration: null },
        user: { id: owner.id, email: owner.email },
        license: { id: lic.id, created: lic.attributes.created, expiry },
      }),
    );
    const ownerless = await l.license(pol.id);
    expect(JSON.parse(datasetOf(ownerless.attributes.key))).toMatchObject({
      user: null,
      license: { id: ownerless.id, created: ownerless.attributes.created, expiry: null },
    });
  });

  it('a key given is the template of the dataset: placeholders in any case, unknown ones empty', async () => {
    const pol = await signedPolicy();
    const owner = await newUser(account);
    const expiry = new Date(Date.now() + 3_600_000).toISOString();
    const template = '{{ID}}|{{account}}|{{Product}}|{{policy}}|{{user}}|{{EMAIL}}|{{created}}|{{expiry}}|{{duration}}|{{seats}}|{{ id }}';
    const lic = await l.license(pol.id, { key: template, expiry }, { owner: owner.id });
    const { product } = pol.relationships;
    expect(datasetOf(lic.attributes.key)).toBe(
      `${lic.id}|${account.id}|${product.data.id}|${pol.id}|${owner.id}|${owner.email}|${lic.attributes.created}|${expiry}|||{{ id }}`,
    );
    const plain = await l.license(pol.id, { key: `{{user}}{{expiry}}tier=pro;seats=3;${randomUUID()}` });
    expect(datasetOf(plain.attributes.key)).toMatch(/^tier=pro;seats=3;/);
  });

  it('a tampered key does not verify, nor does it validate', async () => {
    const pol = await signedPolicy();
    const lic = await l.license(pol.id, { key: `edition=basic;${randomUUID()}` });
    const key = lic.attributes.key as string;
    const { data, signature } = parts(key);
    const forged = Buffer.from(fromBase64url(data).toString('utf8').replace('basic', 'ultra'), 'utf8').toString('base64url');
    const tampered = `key/${forged}${'='.repeat((4 - (forged.length % 4)) % 4)}.${signature}`;
    expect(verifies(key)).toBe(true);
    expect(verifies(tampered)).toBe(false);
    const flipped = `${key.slice(0, -4)}${key.at(-4) === 'A' ? 'B' : 'A'}${key.slice(-3)}`;
    expect(verifies(flipped)).toBe(false);
    expect(code(await validateKey(tampered))).toBe('NOT_FOUND');
  });

  it('validate-key and License <key> work with a signed key; PATCH changes neither key nor scheme', async () => {
    const pol = await signedPolicy();
    const lic = await l.license(pol.id);
    const key = lic.attributes.key as string;
    const validated = await validateKey(key);
    expect(code(validated)).toBe('VALID');
    expect(validated.body.data.id).toBe(lic.id);
    const asLicense = await call('GET', `${account.path}/licenses/${lic.id}`, { authorization: `License ${key}` });
    expect(asLicense.status, JSON.stringify(asLicense.body)).toBe(200);
    expect(asLicense.body.data.attributes).toMatchObject({ key, scheme: 'ED25519_SIGN' });
    const action = await call('POST', `${account.path}/licenses/${lic.id}/actions/validate`, { authorization: `License ${key}` });
    expect(code(action)).toBe('VALID');
    for (const attributes of [{ key: 'other' }, { scheme: null }]) {
      expectError(await l.api('PATCH', `/licenses/${lic.id}`, { body: doc('licenses', attributes) }), 400, {
        source: { pointer: `/data/attributes/${Object.keys(attributes)[0]}` },
      });
    }
    expect((await l.api('GET', `/licenses/${lic.id}`)).body.data.attributes).toMatchObject({ key, scheme: 'ED25519_SIGN' });
  });

  it('keys are unique per account: the same dataset signed twice is 422 KEY_TAKEN', async () => {
    const pol = await signedPolicy();
    const template = `fixed-${randomUUID()}`;
    await l.license(pol.id, { key: template });
    const again = await l.api('POST', '/licenses', { body: doc('licenses', { key: template }, { policy: ref('policies', pol.id) }) });
    expect(expectCode(again, 422, 'KEY_TAKEN').source).toEqual({ pointer: '/data/attributes/key' });
  });

  it('templates of 10 KB and of 16 KB make keys that validate; longer ones, or ones longer once filled in, are 422 KEY_TOO_LONG', async () => {
    const pol = await signedPolicy();
    for (const size of [10 * 1024, 16 * 1024]) {
      const unique = `${randomUUID()};`;
      const template = unique + 'x'.repeat(size - unique.length);
      const lic = await l.license(pol.id, { key: template });
      expect(datasetOf(lic.attributes.key)).toBe(template);
      expect(lic.attributes.key.length).toBeGreaterThan(size);
      const validated = await validateKey(lic.attributes.key);
      expect(code(validated)).toBe('VALID');
      expect(validated.body.data.id).toBe(lic.id);
    }
    const post = (key: string, owner?: string) =>
      l.api('POST', '/licenses', {
        body: doc('licenses', { key }, { policy: ref('policies', pol.id), ...(owner ? { owner: ref('users', owner) } : {}) }),
      });
    expectCode(await post('x'.repeat(16 * 1024 + 1)), 422, 'KEY_TOO_LONG');
    const owner = await newUser(account);
    const expanding = '{{email}}'.repeat(1000);
    expect(expectCode(await post(expanding, owner.id), 422, 'KEY_TOO_LONG').source).toEqual({ pointer: '/data/attributes/key' });
    // Keys of policies without a scheme keep their bound.
    const unsigned = await l.policy((await l.product()).id);
    const plain = await l.api('POST', '/licenses', {
      body: doc('licenses', { key: 'x'.repeat(4097) }, { policy: ref('policies', unsigned.id) }),
    });
    expectCode(plain, 422, 'KEY_TOO_LONG');
  });
});

/** The verdict's code of a validation answer. */
function code(reply: { status: number; body: any }): string {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.meta.code;
}

describe('the client recipe (docs/examples/verify.mjs)', () => {
  it("verifies a signed key with the account's published key and gives its dataset; refuses a changed one", async () => {
    const published = (await call('GET', account.path, { token: account.adminToken })).body.data.meta.keys.ed25519 as string;
    const lic = await l.license((await signedPolicy()).id, { key: 'seat-{{id}}' });
    const key = lic.attributes.key as string;
    expect(verifySignedKey(key, published)).toBe(`seat-${lic.id}`);
    const signature = key.slice(key.lastIndexOf('.') + 1);
    const changed = `key/${Buffer.from(`seat-${randomUUID()}`).toString('base64url')}.${signature}`;
    expect(() => verifySignedKey(changed, published)).toThrow(VerificationError);
  });
});
