/**
 * Standard Webhooks signatures (docs/rules.md §26.4): `webhook-signature: v1,<base64 HMAC-SHA256>`
 * of `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the bytes of the endpoint's secret
 * (`whsec_<base64>`).
 */
import { createHmac } from 'node:crypto';

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
