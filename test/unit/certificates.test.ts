/**
 * The tests' own reader of license and machine files (test/support/certificates.ts), proven on
 * the machine file Keygen publishes as its example (test/fixtures/keygen/machine.lic) before it
 * judges the service's files.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCertificate, readDataset, verifyCertificate } from '../support/certificates.ts';

const FILE = readFileSync(new URL('../fixtures/keygen/machine.lic', import.meta.url), 'utf8');
const LICENSE_KEY = 'B10760-1B177D-656D1F-C03298-9AF89E-V3';
const FINGERPRINT = '198e9fe586114844f6a4eaca5069b41a7ed43fb5a2df84892b69826d64573e39';
const PUBLIC_KEY = 'e8601e48b69383ba520245fd07971e983d06d22c4257cfd82304601479cee788';

/** `text` with the character at `at` replaced by another of the base64 alphabet. */
const flipped = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;

describe("Keygen's example machine file", () => {
  const parsed = parseCertificate(FILE);

  it('is an encrypted machine file, armoured in lines of 60', () => {
    expect(parsed.kind).toBe('machine');
    expect(parsed.alg).toBe('aes-256-gcm+ed25519');
    expect(parsed.lines.slice(0, -1).every((line) => line.length === 60)).toBe(true);
    expect(parsed.lines.at(-1)!.length).toBeLessThanOrEqual(60);
  });

  it("verifies with the account's public key, and not once tampered with", () => {
    expect(verifyCertificate(parsed, PUBLIC_KEY)).toBe(true);
    expect(verifyCertificate({ ...parsed, enc: flipped(parsed.enc, 10) }, PUBLIC_KEY)).toBe(false);
    expect(verifyCertificate({ ...parsed, sig: flipped(parsed.sig, 10) }, PUBLIC_KEY)).toBe(false);
    expect(verifyCertificate({ ...parsed, kind: 'license' }, PUBLIC_KEY)).toBe(false);
    expect(verifyCertificate(parsed, PUBLIC_KEY.replace(/^e8/, 'e9'))).toBe(false);
  });

  it('decrypts with SHA-256 of the license key followed by the fingerprint, to a dataset naming that machine', async () => {
    const dataset = await readDataset(parsed, LICENSE_KEY + FINGERPRINT);
    expect(dataset.data).toMatchObject({ type: 'machines', attributes: { fingerprint: FINGERPRINT } });
    expect(dataset.included).toEqual([
      expect.objectContaining({ type: 'licenses', attributes: expect.objectContaining({ key: LICENSE_KEY }) }),
    ]);
    expect(dataset.meta).toEqual({ issued: '2022-07-28T14:22:23.435Z', expiry: '2022-08-28T14:22:23.435Z', ttl: 2629746 });
  });

  it('does not decrypt under another secret, nor once its ciphertext is changed', async () => {
    await expect(readDataset(parsed, LICENSE_KEY)).rejects.toThrow();
    await expect(readDataset({ ...parsed, enc: flipped(parsed.enc, 10) }, LICENSE_KEY + FINGERPRINT)).rejects.toThrow();
  });
});
