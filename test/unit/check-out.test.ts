/**
 * Building license and machine files (shared/resources/check-out/certificate.ts) and reading what
 * a check-out asks for (options.ts), without I/O. Every file is read back with the tests' own
 * reader (test/support/certificates.ts), and the format is held to Keygen's published example.
 */
import { readFileSync } from 'node:fs';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { InputInvalid } from '#shared/errors.ts';
import { armour, buildCertificate, encryptDataset } from '#shared/resources/check-out/certificate.ts';
import { algorithmOf, checkOutOptions, DEFAULT_TTL, includesOf, ttlOf } from '#shared/resources/check-out/options.ts';
import { datasetText, parseCertificate, readDataset, verifyCertificate } from '../support/certificates.ts';

const KEYGEN_FILE = readFileSync(new URL('../fixtures/keygen/machine.lic', import.meta.url), 'utf8');
const KEYGEN_SECRET = 'B10760-1B177D-656D1F-C03298-9AF89E-V3198e9fe586114844f6a4eaca5069b41a7ed43fb5a2df84892b69826d64573e39';

const keys = nacl.sign.keyPair.fromSeed(new Uint8Array(32).fill(7));
const publicKey = Buffer.from(keys.publicKey).toString('hex');
const sign = (message: Buffer) => Buffer.from(nacl.sign.detached(message, keys.secretKey));

const dataset = JSON.stringify({
  data: { id: 'a', type: 'licenses', attributes: { key: 'KEY-1', name: 'Ünïcode ✓' } },
  included: [],
  meta: { issued: '2030-01-01T00:00:00.000Z', expiry: null, ttl: null },
});

describe('the certificate', () => {
  it("armours a document exactly as Keygen's example file is armoured", () => {
    const parsed = parseCertificate(KEYGEN_FILE);
    expect(armour('machine', JSON.stringify({ enc: parsed.enc, sig: parsed.sig, alg: parsed.alg }))).toBe(KEYGEN_FILE);
  });

  it("encrypts as Keygen does: its example's dataset, key and IV give its ciphertext and tag", async () => {
    const parsed = parseCertificate(KEYGEN_FILE);
    const iv = Buffer.from(parsed.enc.split('.')[1]!, 'base64');
    expect(encryptDataset(await datasetText(parsed, KEYGEN_SECRET), KEYGEN_SECRET, iv)).toBe(parsed.enc);
  });

  it('plain: base64 of the dataset, signed over "license/<enc>", read back by an independent verifier', async () => {
    const { certificate, algorithm } = buildCertificate({ kind: 'license', dataset, sign });
    expect(algorithm).toBe('base64+ed25519');
    expect(certificate.startsWith('-----BEGIN LICENSE FILE-----\n')).toBe(true);
    expect(certificate.endsWith('\n-----END LICENSE FILE-----\n')).toBe(true);
    const parsed = parseCertificate(certificate);
    expect(Object.keys(JSON.parse(Buffer.from(parsed.lines.join(''), 'base64').toString()))).toEqual(['enc', 'sig', 'alg']);
    expect(parsed.lines.slice(0, -1).every((line) => line.length === 60)).toBe(true);
    expect(parsed).toMatchObject({ kind: 'license', alg: 'base64+ed25519', enc: Buffer.from(dataset).toString('base64') });
    expect(verifyCertificate(parsed, publicKey)).toBe(true);
    expect(await datasetText(parsed)).toBe(dataset);
  });

  it('encrypted: AES-256-GCM under SHA-256 of the secret, a fresh IV each time, signed over "machine/<enc>"', async () => {
    const first = parseCertificate(buildCertificate({ kind: 'machine', dataset, sign, encryption: { secret: 'KEY-1fp' } }).certificate);
    const second = parseCertificate(buildCertificate({ kind: 'machine', dataset, sign, encryption: { secret: 'KEY-1fp' } }).certificate);
    expect(first).toMatchObject({ kind: 'machine', alg: 'aes-256-gcm+ed25519' });
    const [ciphertext, iv, tag] = first.enc.split('.').map((part) => Buffer.from(part, 'base64'));
    expect([iv!.length, tag!.length, ciphertext!.length]).toEqual([12, 16, Buffer.byteLength(dataset)]);
    expect(second.enc.split('.')[1]).not.toBe(first.enc.split('.')[1]);
    expect(verifyCertificate(first, publicKey)).toBe(true);
    expect(verifyCertificate({ ...first, kind: 'license' }, publicKey)).toBe(false);
    expect(await datasetText(first, 'KEY-1fp')).toBe(dataset);
    await expect(readDataset(first, 'KEY-1')).rejects.toThrow();
  });

  it('fails verification once enc or sig is changed', () => {
    const parsed = parseCertificate(buildCertificate({ kind: 'license', dataset, sign }).certificate);
    const enc = Buffer.from(`${dataset} `).toString('base64');
    expect(verifyCertificate({ ...parsed, enc }, publicKey)).toBe(false);
    const sig = Buffer.from(parsed.sig, 'base64');
    sig[0] = sig[0]! ^ 1;
    expect(verifyCertificate({ ...parsed, sig: sig.toString('base64') }, publicKey)).toBe(false);
  });
});

/** The fault a call throws: its code and parameter. */
function faultOf(call: () => unknown) {
  try {
    call();
  } catch (error) {
    if (error instanceof InputInvalid) return { code: error.code, parameter: error.source?.parameter };
    throw error;
  }
  throw new Error('no fault');
}

describe('what a check-out asks for', () => {
  const now = Date.parse('2030-01-01T00:00:00.000Z');

  it('defaults: plain, a month, nothing included; encrypt alone chooses the encrypted algorithm', () => {
    expect(checkOutOptions('license', {}, now)).toEqual({ algorithm: 'base64+ed25519', ttl: DEFAULT_TTL, includes: [] });
    expect(DEFAULT_TTL).toBe(2629746);
    expect(algorithmOf({ encrypt: true })).toBe('aes-256-gcm+ed25519');
    expect(algorithmOf({ encrypt: false })).toBe('base64+ed25519');
    expect(algorithmOf({ algorithm: 'aes-256-gcm+ed25519' })).toBe('aes-256-gcm+ed25519');
    expect(algorithmOf({ encrypt: true, algorithm: 'aes-256-gcm+ed25519' })).toBe('aes-256-gcm+ed25519');
  });

  it('refuses an unknown algorithm, or one that contradicts encrypt', () => {
    const expected = { code: 'CHECKOUT_ALGORITHM_INVALID', parameter: 'algorithm' };
    for (const algorithm of ['aes-128-gcm+ed25519', 'base64+rsa-pss-sha256', 'base64', 'BASE64+ED25519', '']) {
      expect(faultOf(() => algorithmOf({ algorithm }))).toEqual(expected);
    }
    expect(faultOf(() => algorithmOf({ encrypt: true, algorithm: 'base64+ed25519' }))).toEqual(expected);
    expect(faultOf(() => algorithmOf({ encrypt: false, algorithm: 'aes-256-gcm+ed25519' }))).toEqual(expected);
  });

  it('takes a ttl of an hour or more, or null for no expiry', () => {
    expect(ttlOf(3600, now)).toBe(3600);
    expect(ttlOf(null, now)).toBeNull();
    expect(ttlOf(undefined, now)).toBe(DEFAULT_TTL);
    for (const ttl of [3599, 0, -3600, 3600.5, Number.NaN, 1e300]) {
      expect(faultOf(() => ttlOf(ttl, now))).toEqual({ code: 'CHECKOUT_TTL_INVALID', parameter: 'ttl' });
    }
  });

  it("takes each kind's includes, each once in the order asked, and nothing else", () => {
    expect(checkOutOptions('license', { include: ['policy', 'product', 'policy'] }, now).includes).toEqual(['policy', 'product']);
    expect(checkOutOptions('machine', { include: ['components', 'license.owner'] }, now).includes).toEqual(['components', 'license.owner']);
    const expected = { code: 'CHECKOUT_INCLUDE_INVALID', parameter: 'include' };
    expect(faultOf(() => checkOutOptions('license', { include: ['license'] }, now))).toEqual(expected);
    expect(faultOf(() => checkOutOptions('machine', { include: ['product'] }, now))).toEqual(expected);
    expect(faultOf(() => includesOf(['user'], ['owner']))).toEqual(expected);
  });
});
