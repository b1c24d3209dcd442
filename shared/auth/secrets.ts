/**
 * Token values, their digests, and passwords. Only digests are ever stored: a SHA-256 of a
 * token value (random, 256 bits, so no salt or stretching is needed) and a salted scrypt hash
 * of a password. Comparisons run in constant time.
 */
import { createHash, randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

export type TokenPrefix = 'admin' | 'user' | 'env' | 'prod' | 'activ';

/** `<prefix>-<64 hex chars>`: the prefix tells a reader what kind of credential leaked. */
export const newTokenValue = (prefix: TokenPrefix) => `${prefix}-${randomBytes(32).toString('hex')}`;

export const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

export const looksLikeUuid = (value: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

/** A random secret for links and resets: 32 bytes, hex. */
export const randomSecret = () => randomBytes(32).toString('hex');

const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 32 };

function derive(password: string, salt: Buffer, options: ScryptOptions & { keyLength: number }): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, options.keyLength, { N: options.N, r: options.r, p: options.p }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** `scrypt$N$r$p$<salt b64>$<hash b64>`: the parameters travel with the hash so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  // Hash even when there is no stored hash, so timing does not tell whether a user exists.
  const [scheme, N, r, p, salt, hash] = (stored ?? DECOY).split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await derive(password, Buffer.from(salt, 'base64'), {
    N: Number(N),
    r: Number(r),
    p: Number(p),
    keyLength: expected.length,
  });
  return timingSafeEqual(key, expected) && stored !== undefined;
}

const DECOY = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(32).toString('base64')}`;

/** Constant-time equality of two digests given as hex. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
