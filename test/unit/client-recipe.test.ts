/**
 * The client recipe (docs/examples/verify.mjs, explained in docs/signatures.md) on Keygen's own
 * vectors: the webhook keygen-go verifies (signed like an answer) and the machine file of its
 * tests; and on files and keys made here with implementations that are not the recipe's
 * (tweetnacl signs, WebCrypto encrypts). Its live use on the API's answers is in
 * test/http/signatures.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { createHash, webcrypto } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { readLicenseFile, VerificationError, verifyAnswer, verifySignedKey } from '../../docs/examples/verify.mjs';

const FIXTURES = join(import.meta.dirname, '../fixtures/keygen');
const RECIPE = join(import.meta.dirname, '../../docs/examples/verify.mjs');

/** The public key of Keygen's test account (keygen-go's tests). */
const KEYGEN_PUBLIC_KEY = 'e8601e48b69383ba520245fd07971e983d06d22c4257cfd82304601479cee788';
const PUBLISHED = Buffer.from(KEYGEN_PUBLIC_KEY).toString('base64');

const refused = (action: () => unknown, reason: RegExp) => {
  expect(action).toThrow(VerificationError);
  expect(action).toThrow(reason);
};

describe("an answer: Keygen's signed webhook (keygen-go's TestWebhook)", () => {
  const body = readFileSync(join(FIXTURES, 'webhook.body'));
  const headers = {
    'Keygen-Signature':
      'keyid="1fddcec8-8dd3-4d8d-9b16-215cac0f9b52", algorithm="ed25519", signature="oov4eX9ZC30U6l/OOOTH/IQF3NAlALlgBWQdh0LdG6WNtHbR95SoYJf2wOGMUGp2tYzNdSwlzPyepWozkKtXBg==", headers="(request-target) host date digest"',
    Digest: 'sha-256=9QceiZktviddaBO8zKZe18/L2kZSFwpGDcmvFkvIH3k=',
    Date: 'Mon, 06 Jun 2022 16:13:37 GMT',
  };
  const answer = { method: 'POST', url: 'https://5173-2600-1700-3e90-a450-533-a11e-339-f87b.ngrok.io/webhooks', headers, body };
  const then = new Date('2022-06-06T16:14:00Z');

  it('verifies, with the key as hex or as meta.keys.ed25519, and returns the document', () => {
    expect(createHash('sha256').update(body).digest('base64')).toBe('9QceiZktviddaBO8zKZe18/L2kZSFwpGDcmvFkvIH3k=');
    const document = verifyAnswer(answer, { publicKey: KEYGEN_PUBLIC_KEY, now: then });
    expect(document.data.type).toBe('webhook-events');
    expect(verifyAnswer(answer, { publicKey: PUBLISHED, now: then, accountId: '1fddcec8-8dd3-4d8d-9b16-215cac0f9b52' })).toEqual(document);
    expect(verifyAnswer({ ...answer, headers: new Headers(headers) }, { publicKey: KEYGEN_PUBLIC_KEY, now: then })).toEqual(document);
  });

  it('refuses a Date more than 5 minutes old or ahead', () => {
    const options = { publicKey: KEYGEN_PUBLIC_KEY };
    refused(() => verifyAnswer(answer, { ...options, now: new Date('2022-06-06T16:18:38Z') }), /not within 5 minutes/);
    refused(() => verifyAnswer(answer, { ...options, now: new Date('2022-06-06T16:08:36Z') }), /not within 5 minutes/);
    refused(() => verifyAnswer(answer, options), /not within 5 minutes/);
    expect(verifyAnswer(answer, { ...options, now: new Date('2022-06-06T16:18:36Z') })).toBeDefined();
  });

  it('refuses another body, target, host, date, key or account', () => {
    const options = { publicKey: KEYGEN_PUBLIC_KEY, now: then };
    const tampered = Buffer.from(body.toString('utf8').replace('DELIVERING', 'DELIVERED!'));
    refused(() => verifyAnswer({ ...answer, body: tampered }, options), /Digest/);
    const digest = `sha-256=${createHash('sha256').update(tampered).digest('base64')}`;
    refused(() => verifyAnswer({ ...answer, body: tampered, headers: { ...headers, Digest: digest } }, options), /does not verify/);
    refused(() => verifyAnswer({ ...answer, url: `${answer.url}?x=1` }, options), /does not verify/);
    refused(() => verifyAnswer({ ...answer, url: answer.url.replace('/webhooks', '/webhook') }, options), /does not verify/);
    refused(() => verifyAnswer({ ...answer, method: 'PUT' }, options), /does not verify/);
    refused(() => verifyAnswer(answer, { ...options, host: 'example.com' }), /does not verify/);
    refused(() => verifyAnswer({ ...answer, headers: { ...headers, Date: 'Mon, 06 Jun 2022 16:13:38 GMT' } }, options), /does not verify/);
    refused(
      () => verifyAnswer(answer, { ...options, publicKey: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a' }),
      /does not verify/,
    );
    refused(() => verifyAnswer(answer, { ...options, accountId: 'another' }), /Signed by/);
    const { 'Keygen-Signature': _, ...unsigned } = headers;
    refused(() => verifyAnswer({ ...answer, headers: unsigned }, options), /not signed/);
  });
});

describe('an answer with a nonce (validations echo meta.nonce)', () => {
  const pair = nacl.sign.keyPair.fromSeed(new Uint8Array(32).fill(7));
  const publicKey = Buffer.from(pair.publicKey).toString('hex');
  /** An answer to POST /validate-key signed the way the API signs, by tweetnacl. */
  function signedValidation(meta: Record<string, unknown>) {
    const body = Buffer.from(JSON.stringify({ data: null, meta }));
    const date = new Date().toUTCString();
    const digest = `sha-256=${createHash('sha256').update(body).digest('base64')}`;
    const message = `(request-target): post /v1/accounts/a/licenses/actions/validate-key\nhost: api.example.test\ndate: ${date}\ndigest: ${digest}`;
    const signature = Buffer.from(nacl.sign.detached(Buffer.from(message), pair.secretKey)).toString('base64');
    const headers = {
      date,
      digest,
      'keygen-signature': `keyid="a", algorithm="ed25519", signature="${signature}", headers="(request-target) host date digest"`,
    };
    return { method: 'POST', url: 'https://api.example.test/v1/accounts/a/licenses/actions/validate-key', headers, body };
  }

  it('accepts the nonce sent and refuses another or none', () => {
    const answer = signedValidation({ valid: true, code: 'VALID', nonce: 1234 });
    expect(verifyAnswer(answer, { publicKey, nonce: 1234 }).meta.nonce).toBe(1234);
    refused(() => verifyAnswer(answer, { publicKey, nonce: 1235 }), /nonce/);
    refused(() => verifyAnswer(signedValidation({ valid: true, code: 'VALID' }), { publicKey, nonce: 1234 }), /nonce/);
  });
});

describe("a machine file: Keygen's (keygen-go's tests)", () => {
  const file = readFileSync(join(FIXTURES, 'machine.lic'), 'utf8');
  const options = {
    publicKey: KEYGEN_PUBLIC_KEY,
    licenseKey: 'B10760-1B177D-656D1F-C03298-9AF89E-V3',
    fingerprint: '198e9fe586114844f6a4eaca5069b41a7ed43fb5a2df84892b69826d64573e39',
  };

  it('verifies and decrypts, and reports it EXPIRED now (its expiry is in 2022)', () => {
    const read = readLicenseFile(file, options);
    expect(read.kind).toBe('machine');
    expect(read.meta).toEqual({ issued: '2022-07-28T14:22:23.435Z', expiry: '2022-08-28T14:22:23.435Z', ttl: 2629746 });
    expect(read.status).toBe('EXPIRED');
    expect(read.data.type).toBe('machines');
    expect(read.data.attributes.fingerprint).toBe(options.fingerprint);
    expect(read.included.map((resource: { type: string }) => resource.type)).toContain('licenses');
  });

  it('is VALID within its term, and keeps the latest time seen', () => {
    const now = new Date('2022-08-01T00:00:00Z');
    const read = readLicenseFile(file, { ...options, now });
    expect(read.status).toBe('VALID');
    expect(read.seen).toBe(now.toISOString());
    expect(readLicenseFile(file, { ...options, now, lastSeen: '2022-07-30T00:00:00Z' }).seen).toBe(now.toISOString());
  });

  it('refuses a clock set back: before the latest time seen, or before the file was issued', () => {
    const rolledBack = readLicenseFile(file, { ...options, now: new Date('2022-08-01T00:00:00Z'), lastSeen: '2022-08-20T00:00:00Z' });
    expect(rolledBack.status).toBe('CLOCK_ROLLED_BACK');
    expect(rolledBack.seen).toBe('2022-08-20T00:00:00.000Z');
    expect(readLicenseFile(file, { ...options, now: new Date('2022-07-01T00:00:00Z') }).status).toBe('CLOCK_ROLLED_BACK');
    // Past its expiry with a clock that also went back: the clock is what is reported.
    expect(readLicenseFile(file, { ...options, lastSeen: '2099-01-01T00:00:00Z' }).status).toBe('CLOCK_ROLLED_BACK');
  });

  it('refuses another license key, fingerprint or public key, and a changed file', () => {
    refused(() => readLicenseFile(file, { ...options, licenseKey: 'B10760-1B177D-656D1F-C03298-9AF89E-V4' }), /does not decrypt/);
    refused(() => readLicenseFile(file, { ...options, fingerprint: 'another' }), /does not decrypt/);
    refused(() => readLicenseFile(file, { ...options, fingerprint: undefined }), /fingerprint/);
    refused(() => readLicenseFile(file, { ...options, licenseKey: undefined }), /license key is needed/);
    refused(
      () => readLicenseFile(file, { ...options, publicKey: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a' }),
      /does not verify/,
    );
    // The same content presented as a license file: the signature covers "machine/".
    refused(() => readLicenseFile(file.replaceAll('MACHINE FILE', 'LICENSE FILE'), options), /does not verify/);
    const { enc, sig, alg } = JSON.parse(Buffer.from(armoured(file), 'base64').toString('utf8'));
    const [ciphertext, iv, tag] = enc.split('.');
    const flipped = Buffer.from(ciphertext, 'base64');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    const altered = { enc: [flipped.toString('base64'), iv, tag].join('.'), sig, alg };
    refused(() => readLicenseFile(armour('MACHINE', altered), options), /does not verify/);
    refused(() => readLicenseFile(armour('MACHINE', { enc, sig, alg: 'aes-256-gcm+rsa-pss-sha256' }), options), /Unsupported/);
    refused(() => readLicenseFile('not a file', options), /Not a license or machine file/);
  });
});

/** The base64 between a file's armour lines. */
const armoured = (text: string) => text.replace(/-----(BEGIN|END) (LICENSE|MACHINE) FILE-----/g, '').replace(/\s+/g, '');
const armour = (kind: 'LICENSE' | 'MACHINE', file: object) =>
  `-----BEGIN ${kind} FILE-----\n${(
    Buffer.from(JSON.stringify(file))
      .toString('base64')
      .match(/.{1,60}/g) ?? []
  ).join('\n')}\n-----END ${kind} FILE-----\n`;

describe('license files made here (tweetnacl signs, WebCrypto encrypts)', () => {
  const pair = nacl.sign.keyPair.fromSeed(new Uint8Array(32).fill(9));
  const publicKey = Buffer.from(pair.publicKey).toString('hex');
  const sign = (message: string) => Buffer.from(nacl.sign.detached(Buffer.from(message), pair.secretKey)).toString('base64');
  const content = {
    meta: { issued: new Date(Date.now() - 60_000).toISOString(), expiry: new Date(Date.now() + 86_400_000).toISOString(), ttl: 86_400 },
    data: { type: 'licenses', id: 'l-1', attributes: { key: 'THE-LICENSE-KEY' } },
    included: [],
  };

  it('an unencrypted license file (base64+ed25519)', () => {
    const enc = Buffer.from(JSON.stringify(content)).toString('base64');
    const read = readLicenseFile(armour('LICENSE', { enc, sig: sign(`license/${enc}`), alg: 'base64+ed25519' }), { publicKey });
    expect(read).toMatchObject({ kind: 'license', status: 'VALID', meta: content.meta, data: content.data });
    refused(() => readLicenseFile(armour('LICENSE', { enc, sig: sign(`machine/${enc}`), alg: 'base64+ed25519' }), { publicKey }), /verify/);
  });

  it('an encrypted license file (aes-256-gcm+ed25519, key SHA-256 of the license key)', async () => {
    const secret = createHash('sha256').update('THE-LICENSE-KEY').digest();
    const key = await webcrypto.subtle.importKey('raw', secret, 'AES-GCM', false, ['encrypt']);
    const iv = webcrypto.getRandomValues(new Uint8Array(12));
    const sealed = Buffer.from(await webcrypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, Buffer.from(JSON.stringify(content))));
    // WebCrypto appends the 16-byte tag to the ciphertext.
    const enc = [sealed.subarray(0, -16), Buffer.from(iv), sealed.subarray(-16)].map((part) => part.toString('base64')).join('.');
    const text = armour('LICENSE', { enc, sig: sign(`license/${enc}`), alg: 'aes-256-gcm+ed25519' });
    expect(readLicenseFile(text, { publicKey, licenseKey: 'THE-LICENSE-KEY' })).toMatchObject({ status: 'VALID', data: content.data });
    refused(() => readLicenseFile(text, { publicKey, licenseKey: 'ANOTHER-KEY' }), /does not decrypt/);
  });

  it('an expired one, and one without expiry', () => {
    const past = { ...content, meta: { ...content.meta, expiry: new Date(Date.now() - 1000).toISOString() } };
    const never = { ...content, meta: { ...content.meta, expiry: null, ttl: null } };
    const file = (body: object) => {
      const enc = Buffer.from(JSON.stringify(body)).toString('base64');
      return armour('LICENSE', { enc, sig: sign(`license/${enc}`), alg: 'base64+ed25519' });
    };
    expect(readLicenseFile(file(past), { publicKey }).status).toBe('EXPIRED');
    expect(readLicenseFile(file(never), { publicKey }).status).toBe('VALID');
  });
});

describe('a signed key (tweetnacl signs)', () => {
  const pair = nacl.sign.keyPair.fromSeed(new Uint8Array(32).fill(3));
  const publicKey = Buffer.from(pair.publicKey).toString('hex');
  // base64url with padding, as Keygen writes it: this dataset's encoding and every signature's end in "=".
  const padded = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64').replaceAll('+', '-').replaceAll('/', '_');
  const dataset = JSON.stringify({ license: 'l-10', expiry: '2030-01-01' });
  const encoded = padded(Buffer.from(dataset));
  const signature = (message: string) => padded(nacl.sign.detached(Buffer.from(message), pair.secretKey));
  const key = `key/${encoded}.${signature(`key/${encoded}`)}`;

  it('verifies and gives its dataset', () => {
    expect(encoded.endsWith('=') && key.endsWith('=')).toBe(true);
    expect(verifySignedKey(key, publicKey)).toBe(dataset);
    expect(verifySignedKey(key, Buffer.from(publicKey).toString('base64'))).toBe(dataset);
  });

  it('refuses another dataset, a signature over something else, another key, or no key/ prefix', () => {
    const other = Buffer.from(JSON.stringify({ license: 'l-2', expiry: '2099-01-01' })).toString('base64url');
    refused(() => verifySignedKey(`key/${other}.${key.split('.')[1]}`, publicKey), /does not verify/);
    refused(() => verifySignedKey(`key/${encoded}.${signature(encoded)}`, publicKey), /does not verify/);
    const stranger = Buffer.from(nacl.sign.keyPair.fromSeed(new Uint8Array(32).fill(4)).publicKey).toString('hex');
    refused(() => verifySignedKey(key, stranger), /does not verify/);
    refused(() => verifySignedKey(key.slice('key/'.length), publicKey), /Not a signed key/);
  });
});

describe('the command line', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, [RECIPE, ...args], { encoding: 'utf8' });

  it('reads a machine file, and fails with the reason', () => {
    const read = run(
      'file',
      PUBLISHED,
      join(FIXTURES, 'machine.lic'),
      'B10760-1B177D-656D1F-C03298-9AF89E-V3',
      '198e9fe586114844f6a4eaca5069b41a7ed43fb5a2df84892b69826d64573e39',
    );
    expect(read.status, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toMatchObject({ kind: 'machine', status: 'EXPIRED' });
    const refusedRead = run('file', PUBLISHED, join(FIXTURES, 'machine.lic'), 'WRONG', 'WRONG');
    expect(refusedRead.status).toBe(1);
    expect(refusedRead.stderr).toMatch(/does not decrypt/);
  });
});
