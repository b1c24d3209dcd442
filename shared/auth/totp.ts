/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA-1, 6 digits, a new code
 * every 30 seconds, what every authenticator app reads from an otpauth:// URI. A code is accepted
 * for its own step and one step either side (clocks drift); which step it matched is returned, so
 * that the caller can refuse a step used already (no replay).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const STEP_SECONDS = 30;
const DIGITS = 6;
/** Steps accepted either side of the current one. */
const DRIFT_STEPS = 1;
/** 160 bits, the HMAC-SHA-1 key size RFC 4226 recommends. */
const SECRET_BYTES = 20;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32, without padding (as otpauth:// URIs carry secrets). */
export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of text.replace(/=+$/, '').toUpperCase()) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error('Not base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A new shared secret, base32. */
export const newTotpSecret = () => base32Encode(randomBytes(SECRET_BYTES));

/** The step a time (epoch ms) falls in. */
export const stepAt = (at: number) => Math.floor(at / 1000 / STEP_SECONDS);

/** The code of `step` for a secret (raw bytes), `digits` long (RFC 4226 §5.3's dynamic truncation). */
export function hotp(key: Uint8Array, step: number, digits = DIGITS): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/**
 * The step whose code `otp` is, among the current one at `at` and those within the drift;
 * undefined when none (or when `otp` is not six digits). Every candidate is compared, in constant
 * time, so the time taken tells nothing of which step was close.
 */
export function matchingStep(secret: string, otp: string, at = Date.now()): number | undefined {
  if (!/^\d{6}$/.test(otp)) return undefined;
  const key = base32Decode(secret);
  const given = Buffer.from(otp);
  const now = stepAt(at);
  let matched: number | undefined;
  for (let step = now - DRIFT_STEPS; step <= now + DRIFT_STEPS; step++) {
    if (timingSafeEqual(Buffer.from(hotp(key, step)), given) && matched === undefined) matched = step;
  }
  return matched;
}

/**
 * The provisioning URI an authenticator app scans: `otpauth://totp/<issuer>:<account>?secret=…`.
 * The label's parts may hold no colon (apps split it there): colons are left out of them, not of
 * the `issuer` parameter.
 */
export function otpauthUri(secret: string, issuer: string, accountName: string): string {
  const part = (text: string) => encodeURIComponent(text.replace(/:/g, ''));
  const label = `${part(issuer)}:${part(accountName)}`;
  const query = new URLSearchParams({ secret, issuer, algorithm: 'SHA1', digits: String(DIGITS), period: String(STEP_SECONDS) });
  return `otpauth://totp/${label}?${query.toString().replace(/\+/g, '%20')}`;
}
