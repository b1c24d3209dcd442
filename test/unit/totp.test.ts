/**
 * One-time codes (shared/auth/totp.ts) checked against what is not ours: RFC 6238 Appendix B's
 * SHA-1 test vectors, RFC 4648's base32 vectors, and the otpauth package making and reading codes
 * and URIs for random secrets at random times.
 */
import { randomBytes, randomInt } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, hotp, matchingStep, newTotpSecret, otpauthUri, stepAt } from '#shared/auth/totp.ts';

describe('TOTP', () => {
  it("gives RFC 6238's SHA-1 test vectors (8 digits), and their last six for 6", () => {
    const key = Buffer.from('12345678901234567890');
    const vectors: [number, string][] = [
      [59, '94287082'],
      [1111111109, '07081804'],
      [1111111111, '14050471'],
      [1234567890, '89005924'],
      [2000000000, '69279037'],
      [20000000000, '65353130'],
    ];
    for (const [seconds, code] of vectors) {
      expect(hotp(key, stepAt(seconds * 1000), 8)).toBe(code);
      expect(hotp(key, stepAt(seconds * 1000))).toBe(code.slice(2));
    }
  });

  it("encodes base32 as RFC 4648's vectors (unpadded), and decodes its own", () => {
    const vectors = { f: 'MY', fo: 'MZXQ', foo: 'MZXW6', foob: 'MZXW6YQ', fooba: 'MZXW6YTB', foobar: 'MZXW6YTBOI' };
    for (const [plain, encoded] of Object.entries(vectors)) {
      expect(base32Encode(Buffer.from(plain))).toBe(encoded);
      expect(base32Decode(encoded).toString()).toBe(plain);
    }
    expect(() => base32Decode('not base32!')).toThrow();
  });

  it('agrees with otpauth on random secrets and times; accepts one step either side and no further', () => {
    for (let i = 0; i < 50; i++) {
      const secret = base32Encode(randomBytes(20));
      const at = randomInt(0, 2 ** 40);
      const theirs = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
      const step = stepAt(at);
      expect(hotp(base32Decode(secret), step)).toBe(theirs.generate({ timestamp: at }));
      for (const drift of [-1, 0, 1])
        expect(matchingStep(secret, theirs.generate({ timestamp: at + drift * 30_000 }), at)).toBe(step + drift);
      for (const drift of [-3, -2, 2, 3]) {
        const code = theirs.generate({ timestamp: at + drift * 30_000 });
        // Unless, by chance, an accepted step has the same code.
        const accepted = [-1, 0, 1].map((d) => theirs.generate({ timestamp: at + d * 30_000 }));
        if (!accepted.includes(code)) expect(matchingStep(secret, code, at)).toBeUndefined();
      }
    }
  });

  it('refuses what is not six digits', () => {
    const secret = newTotpSecret();
    const code = hotp(base32Decode(secret), stepAt(Date.now()));
    for (const otp of [` ${code}`, `${code}0`, code.slice(1), 'abcdef', '', `${code}\n`]) expect(matchingStep(secret, otp)).toBeUndefined();
    expect(matchingStep(secret, code)).toBe(stepAt(Date.now()));
  });

  it('makes URIs otpauth reads back: issuer, label, secret', () => {
    const secret = newTotpSecret();
    const uri = otpauthUri(secret, 'Acme & Co: Licensing', 'jane+test@example.com');
    const parsed = OTPAuth.URI.parse(uri) as OTPAuth.TOTP;
    expect(parsed).toBeInstanceOf(OTPAuth.TOTP);
    expect({ issuer: parsed.issuer, label: parsed.label, secret: parsed.secret.base32 }).toEqual({
      issuer: 'Acme & Co: Licensing',
      label: 'jane+test@example.com',
      secret,
    });
  });
});
