/**
 * Verifying what the licensing API signs, with Node.js's own `crypto` and no package (Node 20 or
 * later): the API's answers, license and machine files, and signed license keys. Every step is
 * explained in docs/signatures.md.
 *
 *   import { readLicenseFile, verifyAnswer, verifySignedKey } from './verify.mjs';
 *
 * From a shell, with the account's public key (its `meta.keys.ed25519`, or the 64 hex digits):
 *
 *   node verify.mjs answer <public key> <url> [<bearer token>]       GET the URL, verify, print the document
 *   node verify.mjs file <public key> <file> [<license key> [<fingerprint>]]
 *   node verify.mjs key <public key> <signed key>
 */
import { createDecipheriv, createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** How far an answer's Date, or a file's issue time, may be from this machine's clock. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

/** What the API's answers are signed over, in this order. */
const SIGNED_HEADERS = '(request-target) host date digest';

/** Anything that is not as the account signed it: the caller must not trust what it holds. */
export class VerificationError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'VerificationError';
  }
}

// The DER prefix of an Ed25519 public key in SPKI form (RFC 8410): the 32 raw bytes follow.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * The account's public key, given as its 64 hex digits or as `meta.keys.ed25519` (base64 of them).
 * @param {string} key
 */
export function publicKeyOf(key) {
  const hex = /^[0-9a-f]{64}$/i.test(key) ? key : Buffer.from(key, 'base64').toString('utf8');
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new VerificationError('The public key is neither 64 hex digits nor their base64');
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(hex, 'hex')]), format: 'der', type: 'spki' });
}

/**
 * @param {string} message
 * @param {Buffer} signature
 * @param {string} publicKey
 */
const signedBy = (message, signature, publicKey) => verify(null, Buffer.from(message, 'utf8'), publicKeyOf(publicKey), signature);

/**
 * @param {string} text
 * @param {string} what
 */
function parseJson(text, what) {
  try {
    return JSON.parse(text);
  } catch {
    throw new VerificationError(`${what} is not JSON`);
  }
}

// ---------------------------------------------------------------------------------------------
// Answers

/**
 * @typedef {object} Answer
 * @property {string} method   The request's method.
 * @property {string | URL} url   The URL requested, exactly as sent: its path and query are signed byte for byte.
 * @property {Headers | Record<string, string>} headers   The answer's headers.
 * @property {Uint8Array | string} body   The answer's body as received, before any parsing.
 */

/**
 * @typedef {object} AnswerOptions
 * @property {string} publicKey   The account's public key.
 * @property {string} [accountId]   When given, the signature must name this account (its keyid).
 * @property {string} [host]   The Host header sent, when it was not the URL's host.
 * @property {string | number} [nonce]   The `meta.nonce` sent with a validation: the answer must echo it.
 * @property {Date} [now]
 */

/**
 * Checks an answer's signature, digest, date and (for a validation) nonce; returns its JSON
 * document (undefined for an empty body) or throws a VerificationError.
 * @param {Answer} answer
 * @param {AnswerOptions} options
 */
export function verifyAnswer(answer, options) {
  const header = (/** @type {string} */ name) =>
    answer.headers instanceof Headers
      ? answer.headers.get(name)
      : (Object.entries(answer.headers).find(([key]) => key.toLowerCase() === name)?.[1] ?? null);
  const fields = Object.fromEntries([...(header('keygen-signature') ?? '').matchAll(/([a-z]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
  if (!fields.signature) throw new VerificationError('The answer is not signed');
  if (fields.algorithm !== 'ed25519') throw new VerificationError(`Unexpected signature algorithm ${fields.algorithm}`);
  if (fields.headers !== SIGNED_HEADERS) throw new VerificationError(`Unexpected signed headers ${fields.headers}`);
  if (options.accountId !== undefined && fields.keyid !== options.accountId) throw new VerificationError(`Signed by ${fields.keyid}`);

  // Keygen-Date and Keygen-Digest are copies that a proxy rewriting Date or Digest leaves alone.
  const date = header('keygen-date') ?? header('date') ?? '';
  const digest = header('keygen-digest') ?? header('digest') ?? '';
  const body = typeof answer.body === 'string' ? Buffer.from(answer.body, 'utf8') : Buffer.from(answer.body);
  if (digest !== `sha-256=${createHash('sha256').update(body).digest('base64')}`) {
    throw new VerificationError('The body is not the one signed (Digest)');
  }

  const url = new URL(answer.url);
  const message = [
    `(request-target): ${answer.method.toLowerCase()} ${url.pathname}${url.search}`,
    `host: ${options.host ?? url.host}`,
    `date: ${date}`,
    `digest: ${digest}`,
  ].join('\n');
  if (!signedBy(message, Buffer.from(fields.signature, 'base64'), options.publicKey)) {
    throw new VerificationError('The signature does not verify: another request, host, date or body, or another key');
  }

  // A signed answer recorded once must not be replayed later.
  const age = (options.now ?? new Date()).getTime() - Date.parse(date);
  if (!(Math.abs(age) <= MAX_CLOCK_SKEW_MS)) throw new VerificationError(`The answer's Date (${date}) is not within 5 minutes of now`);

  const document = body.length === 0 ? undefined : parseJson(body.toString('utf8'), 'The answer');
  // A validation's verdict recorded once must not be replayed for another validation.
  if (options.nonce !== undefined && document?.meta?.nonce !== options.nonce) {
    throw new VerificationError('The answer does not echo the nonce sent');
  }
  return document;
}

// ---------------------------------------------------------------------------------------------
// License and machine files

/**
 * @typedef {object} FileOptions
 * @property {string} publicKey   The account's public key.
 * @property {string} [licenseKey]   The license's key: the decryption key of an encrypted file is derived from it.
 * @property {string} [fingerprint]   The machine's fingerprint (machine files).
 * @property {string | Date} [lastSeen]   The `seen` of the previous reading: the latest time this program has seen.
 * @property {Date} [now]
 */

/**
 * @typedef {object} LicenseFile
 * @property {'license' | 'machine'} kind
 * @property {'VALID' | 'EXPIRED' | 'CLOCK_ROLLED_BACK'} status   Use the file only when VALID.
 * @property {string} seen   The latest time seen so far (ISO 8601): store it and pass it as `lastSeen` next time.
 * @property {{ issued: string, expiry: string | null, ttl: number | null }} meta
 * @property {any} data   The license (or machine) resource.
 * @property {any[]} included
 */

/**
 * Reads a license or machine file: its signature first, then its content (decrypted when
 * encrypted), then its times. Throws a VerificationError when the file is not as signed.
 * @param {string} text   The file, armour included.
 * @param {FileOptions} options
 * @returns {LicenseFile}
 */
export function readLicenseFile(text, options) {
  const armour = /-----BEGIN (LICENSE|MACHINE) FILE-----([A-Za-z0-9+/=\s]+)-----END \1 FILE-----/.exec(text);
  if (!armour?.[1] || !armour[2]) throw new VerificationError('Not a license or machine file');
  const kind = armour[1] === 'LICENSE' ? 'license' : 'machine';
  const { enc, sig, alg } = parseJson(Buffer.from(armour[2].replace(/\s+/g, ''), 'base64').toString('utf8'), 'The file');
  if (typeof enc !== 'string' || typeof sig !== 'string') throw new VerificationError('The file has no enc or sig');
  if (alg !== 'aes-256-gcm+ed25519' && alg !== 'base64+ed25519') throw new VerificationError(`Unsupported algorithm ${alg}`);
  if (!signedBy(`${kind}/${enc}`, Buffer.from(sig, 'base64'), options.publicKey)) {
    throw new VerificationError("The file's signature does not verify");
  }

  let content = Buffer.from(enc, 'base64');
  if (alg === 'aes-256-gcm+ed25519') {
    if (options.licenseKey === undefined) throw new VerificationError('The file is encrypted: its license key is needed');
    if (kind === 'machine' && options.fingerprint === undefined)
      throw new VerificationError("A machine file needs the machine's fingerprint");
    const secret = kind === 'license' ? options.licenseKey : `${options.licenseKey}${options.fingerprint}`;
    content = decrypt(enc, createHash('sha256').update(secret).digest());
  }
  const { meta, data, included } = parseJson(content.toString('utf8'), 'The file content');

  // A clock set back to before a time already seen could make an expired file look valid again.
  const now = (options.now ?? new Date()).getTime();
  const latest = Math.max(Date.parse(meta.issued), options.lastSeen === undefined ? 0 : new Date(options.lastSeen).getTime());
  /** @type {LicenseFile['status']} */
  let status = 'VALID';
  if (!(now >= latest - MAX_CLOCK_SKEW_MS)) status = 'CLOCK_ROLLED_BACK';
  else if (meta.expiry !== null && !(now <= Date.parse(meta.expiry))) status = 'EXPIRED';
  return { kind, status, seen: new Date(Math.max(latest, now)).toISOString(), meta, data, included: included ?? [] };
}

/**
 * `<base64 ciphertext>.<base64 iv>.<base64 tag>`, AES-256-GCM.
 * @param {string} enc
 * @param {Buffer} key
 */
function decrypt(enc, key) {
  const [ciphertext, iv, tag] = enc.split('.').map((part) => Buffer.from(part, 'base64'));
  if (!ciphertext || !iv || !tag) throw new VerificationError('The encrypted content is malformed');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    throw new VerificationError('The file does not decrypt: another license key or fingerprint');
  }
}

// ---------------------------------------------------------------------------------------------
// Signed license keys

/**
 * A signed key, `key/<base64url dataset>.<base64url signature>`, signed over `key/<base64url
 * dataset>` as written; returns the dataset it carries or throws a VerificationError.
 * @param {string} key
 * @param {string} publicKey   The account's public key.
 */
export function verifySignedKey(key, publicKey) {
  const parts = /^key\/([A-Za-z0-9_-]+={0,2})\.([A-Za-z0-9_-]+={0,2})$/.exec(key.trim());
  if (!parts?.[1] || !parts[2]) throw new VerificationError('Not a signed key');
  if (!signedBy(`key/${parts[1]}`, Buffer.from(parts[2], 'base64url'), publicKey)) {
    throw new VerificationError("The key's signature does not verify");
  }
  return Buffer.from(parts[1], 'base64url').toString('utf8');
}

// ---------------------------------------------------------------------------------------------
// Command line

/** @param {string[]} args */
async function main([command, publicKey, ...rest]) {
  if (command === 'answer' && publicKey && rest[0]) {
    const url = rest[0];
    const headers = { accept: 'application/vnd.api+json', ...(rest[1] ? { authorization: `Bearer ${rest[1]}` } : {}) };
    const response = await fetch(url, { headers });
    const body = Buffer.from(await response.arrayBuffer());
    return verifyAnswer({ method: 'GET', url, headers: response.headers, body }, { publicKey });
  }
  if (command === 'file' && publicKey && rest[0]) {
    return readLicenseFile(readFileSync(rest[0], 'utf8'), { publicKey, licenseKey: rest[1], fingerprint: rest[2] });
  }
  if (command === 'key' && publicKey && rest[0]) return { dataset: verifySignedKey(rest[0], publicKey) };
  throw new Error('usage: verify.mjs answer|file|key <public key> ... (see the comment at the top of verify.mjs)');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (result) => console.log(JSON.stringify(result, null, 2)),
    (error) => {
      console.error(error.message);
      process.exitCode = 1;
    },
  );
}
