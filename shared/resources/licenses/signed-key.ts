/**
 * Signed license keys (Keygen's ED25519_SIGN scheme, docs/rules.md §18.2): `key/<dataset>.<signature>`,
 * both parts base64url WITH `=` padding, the signature Ed25519 (RFC 8032) over the ASCII string
 * `key/<dataset>` with the account's signing key (shared/auth/signing-key.ts). Whoever holds the
 * account's public key checks a key offline and reads its dataset; only the service makes one.
 *
 * The dataset is the key the client gave, as a template whose `{{placeholders}}` name facts of
 * the license, or by default a compact JSON document of those facts. A template is signed as
 * given (as Keygen does): whoever may create a license under the policy may have any text signed,
 * even one shaped like another product's default dataset (docs/rules.md §18.3).
 */

/** What every signed key starts with; it is part of the signed message. */
export const SIGNED_KEY_PREFIX = 'key/';

/** The largest dataset a signed key carries, in bytes of UTF-8 (the template's own bound: service.ts). */
export const DATASET_MAX_BYTES = 16 * 1024;

/** base64url keeping the padding, as Keygen encodes (Node's `base64url` drops it). */
export const base64url = (bytes: Buffer) => bytes.toString('base64').replace(/\+/g, '-').replace(/\//g, '_');

const encodedLength = (bytes: number) => 4 * Math.ceil(bytes / 3);
const SIGNATURE_BYTES = 64;

/** The longest signed key: one carrying the largest dataset. */
export const SIGNED_KEY_MAX_LENGTH = SIGNED_KEY_PREFIX.length + encodedLength(DATASET_MAX_BYTES) + 1 + encodedLength(SIGNATURE_BYTES);

/** What a dataset may tell of the license being made. */
export interface LicenseFacts {
  id: string;
  account: string;
  product: string;
  policy: string;
  /** The owner, if any. */
  user: { id: string; email: string } | null;
  created: string;
  expiry: string | null;
  /** The policy's duration in seconds (null: perpetual). */
  duration: number | null;
}

/**
 * The template with each `{{name}}` (name compared case-insensitively) replaced by that fact, or
 * by nothing when the license lacks it (no owner, no expiry, no duration) or the name is unknown.
 * One pass: a substituted value is never read as a template again.
 */
export function renderTemplate(template: string, facts: LicenseFacts): string {
  const values = new Map<string, string>([
    ['id', facts.id],
    ['account', facts.account],
    ['product', facts.product],
    ['policy', facts.policy],
    ['user', facts.user?.id ?? ''],
    ['email', facts.user?.email ?? ''],
    ['created', facts.created],
    ['expiry', facts.expiry ?? ''],
    ['duration', facts.duration === null ? '' : String(facts.duration)],
  ]);
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => values.get(name.toLowerCase()) ?? '');
}

/** The dataset when the client gives no key: the license's facts as compact JSON. */
export const defaultDataset = (facts: LicenseFacts) =>
  JSON.stringify({
    account: { id: facts.account },
    product: { id: facts.product },
    policy: { id: facts.policy, duration: facts.duration },
    user: facts.user && { id: facts.user.id, email: facts.user.email },
    license: { id: facts.id, created: facts.created, expiry: facts.expiry },
  });

/** The signed key of a dataset, signed by `signer` (the account's signing key). */
export function signedKey(dataset: string, signer: { sign(message: string): Buffer }): string {
  const signed = `${SIGNED_KEY_PREFIX}${base64url(Buffer.from(dataset, 'utf8'))}`;
  return `${signed}.${base64url(signer.sign(signed))}`;
}
