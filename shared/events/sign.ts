/**
 * A delivery's signatures (docs/rules.md §26.4), two of them, so that either kind of receiver
 * verifies it:
 *
 * - Standard Webhooks: `webhook-signature: v1,<base64 HMAC-SHA256>` of
 *   `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the bytes of the endpoint's secret
 *   (`whsec_<base64>`);
 * - Keygen's: the account's Ed25519 signature over the POST's target, the Host it goes to, its
 *   `Date` and the `Digest` of its body, in the headers an answer carries (shared/http/signature.ts),
 *   which Keygen's SDKs check (`keygen.VerifyWebhook`) with the account's public key.
 */
import { createHmac } from 'node:crypto';
import type { SigningKey } from '../auth/signing-key.ts';
import { bodyDigest, SIGNATURE_ALGORITHM, SIGNED_HEADERS, signingString } from '../http/signature.ts';

const PREFIX = 'whsec_';

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The headers of a delivery; `id` is the event's idempotency token, stable across retries. */
export function signedHeaders(secret: string, id: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'content-type': 'application/vnd.api+json',
    'user-agent': 'licensing-webhooks/1',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': sign(secret, id, timestamp, body),
  };
}

/** Keygen's signature headers of a POST of `body` to `url`, at `now`, with the account's key. */
export function keygenSignatureHeaders(accountId: string, key: Pick<SigningKey, 'sign'>, url: URL, body: string, now = new Date()) {
  const date = now.toUTCString();
  const digest = bodyDigest(Buffer.from(body, 'utf8'));
  const message = signingString({ method: 'POST', path: url.pathname, query: url.search.slice(1), host: url.host, date, digest });
  const signature = key.sign(message).toString('base64');
  return {
    date,
    digest,
    'keygen-date': date,
    'keygen-digest': digest,
    'keygen-signature': `keyid="${accountId}", algorithm="${SIGNATURE_ALGORITHM}", signature="${signature}", headers="${SIGNED_HEADERS}"`,
  };
}
