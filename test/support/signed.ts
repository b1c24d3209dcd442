/**
 * Every answer the HTTP tests receive for a known account is checked for its signature, the
 * way a client using Keygen's SDKs checks it: the signing string rebuilt from the request as sent
 * (method, raw path and query, Host) and the answer's Date and Digest, the digest recomputed over
 * the body bytes. The first answer signed with each key in a test process, and every answer a
 * test checks by calling verifyAnswer itself, is verified by an Ed25519 implementation that is
 * not the one signing (tweetnacl, pure JavaScript, about 9 ms a signature); the others by
 * Node's own (OpenSSL, under 0.1 ms), so that checking every answer costs the run little.
 *
 * Every answer for an existing account is signed, a path no route matches and a media type
 * refused included. Unsigned are the answers for an unknown account (no key to sign with), those
 * the local server gives before any function (a body too large, 413; a head too large, 431; a
 * request that is not HTTP, 400 REQUEST_MALFORMED), and the hosted password-reset form, a static
 * page that never reads the account (`form` in shared/resources/passwords/pages.ts).
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import nacl from 'tweetnacl';
import { accountKey } from '#shared/store/keys.ts';
import { getItem } from '#shared/store/records.ts';

export interface SignedAnswer {
  method: string;
  /** The URL requested. */
  url: URL;
  status: number;
  headers: Headers;
  body: Buffer;
}

/** Public keys (hex) of the accounts this test process knows, by id and by slug. */
const publicKeys = new Map<string, string>();
const slugs = new Map<string, string>();

export function knowAccount(account: { id: string; slug: string; publicKey: string }): void {
  publicKeys.set(account.id, account.publicKey);
  slugs.set(account.slug, account.id);
}

/** Throws if an answer that must be signed is not, or if a signature does not verify. */
export async function checkSigned(answer: SignedAnswer): Promise<void> {
  const named = /^\/v1\/accounts\/([^/?]+)/.exec(answer.url.pathname)?.[1];
  const signature = answer.headers.get('keygen-signature');
  const accountId = named === undefined ? undefined : publicKeys.has(named) ? named : slugs.get(named);
  if (signature === null) {
    if (accountId !== undefined && mustBeSigned(answer)) {
      throw new Error(`${answer.method} ${answer.url.pathname} answered ${answer.status} without Keygen-Signature`);
    }
    return;
  }
  const fields = parseFields(signature);
  const keyid = fields.keyid ?? '';
  if (accountId !== undefined && keyid !== accountId) throw new Error(`signed with the key of ${keyid}, not of the account ${accountId}`);
  const publicKey = publicKeys.get(keyid) ?? (await storedPublicKey(keyid));
  const verifier = checkedIndependently.has(publicKey) ? 'openssl' : 'tweetnacl';
  const problem = verifyAnswer(answer, publicKey, verifier);
  if (problem) throw new Error(`${answer.method} ${answer.url.pathname} (${answer.status}): ${problem}`);
  checkedIndependently.add(publicKey);
}

/** Keys of which an answer verified with tweetnacl in this process. */
const checkedIndependently = new Set<string>();

/** DER prefix of an Ed25519 public key (SubjectPublicKeyInfo), before its 32 raw bytes. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** What is wrong with the answer's signature, or undefined when it verifies. */
export function verifyAnswer(
  answer: SignedAnswer,
  publicKeyHex: string,
  verifier: 'tweetnacl' | 'openssl' = 'tweetnacl',
): string | undefined {
  const fields = parseFields(answer.headers.get('keygen-signature') ?? '');
  if (fields.algorithm !== 'ed25519') return `algorithm ${fields.algorithm}`;
  if (fields.headers !== '(request-target) host date digest') return `signed headers ${fields.headers}`;
  const date = answer.headers.get('date') ?? '';
  const digest = answer.headers.get('digest') ?? '';
  if (answer.headers.get('keygen-date') !== date || answer.headers.get('keygen-digest') !== digest) return 'Keygen-Date/Digest differ';
  const expected = `sha-256=${createHash('sha256').update(answer.body).digest('base64')}`;
  if (digest !== expected) return `Digest ${digest}, body hashes to ${expected}`;
  if (Math.abs(Date.parse(date) - Date.now()) > 5 * 60_000) return `Date ${date} is not now`;
  const target = `${answer.method.toLowerCase()} ${answer.url.pathname}${answer.url.search}`;
  const message = [`(request-target): ${target}`, `host: ${answer.url.host}`, `date: ${date}`, `digest: ${digest}`].join('\n');
  const signature = Buffer.from(fields.signature ?? '', 'base64');
  const publicKey = Buffer.from(publicKeyHex, 'hex');
  const verified =
    verifier === 'tweetnacl'
      ? nacl.sign.detached.verify(Buffer.from(message), signature, publicKey)
      : verify(
          null,
          Buffer.from(message),
          createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' }),
          signature,
        );
  return verified ? undefined : 'the signature does not verify';
}

function mustBeSigned(answer: SignedAnswer): boolean {
  if (answer.status === 413 || answer.status === 431 || answer.url.pathname.endsWith('/password-reset')) return false;
  if (answer.status !== 400) return true;
  const text = answer.body.toString('utf8');
  return !(text.startsWith('{') && (JSON.parse(text).errors ?? []).some((error: { code?: string }) => error.code === 'REQUEST_MALFORMED'));
}

function parseFields(header: string): Record<string, string> {
  return Object.fromEntries([...header.matchAll(/([a-z]+)="([^"]*)"/g)].map((match) => [match[1], match[2]]));
}

async function storedPublicKey(accountId: string): Promise<string> {
  const item = await getItem(accountKey(accountId));
  const publicKey = (item?.signingKey as { publicKey?: string } | undefined)?.publicKey;
  if (!publicKey) throw new Error(`account ${accountId} has no signing key`);
  publicKeys.set(accountId, publicKey);
  return publicKey;
}
