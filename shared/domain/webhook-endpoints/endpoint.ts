/**
 * Webhook endpoints (docs/rules.md §5): where an environment's events are delivered. An endpoint
 * belongs to one environment (or to none = global) and receives only that environment's
 * events, of the kinds it subscribes to (`*` = all), while it is enabled.
 *
 * The signing secret is Standard Webhooks' `whsec_<base64 of 32 random bytes>`. It is kept as
 * is (signing needs it, so it cannot be a digest) and shown only in the response that
 * creates the endpoint.
 */
import { randomBytes } from 'node:crypto';
import { config } from '../../config.ts';
import { ruleBroken } from '../../errors.ts';
import { EVENT_KINDS, isEventKind } from '../../events/kinds.ts';
import { hostOf, isPlainlyPrivate } from '../../events/targets.ts';
import type { StoredRecord } from '../../store/records.ts';
import { attributePointer } from '../rules.ts';

export interface WebhookEndpointRecord extends StoredRecord {
  type: 'webhook-endpoints';
  url: string;
  /** Event kinds (`user.created`), or `*` for every kind. */
  subscriptions: string[];
  enabled: boolean;
  signingSecret: string;
}

export const URL_MAX = 2048;
/** Endpoints per environment: every change writes one event per endpoint in its own transaction. */
export const MAX_ENDPOINTS = 20;
/**
 * What a body may send: each kind and `*` a few times over (duplicates are dropped), refused
 * cheaply past that (400). Stored, an endpoint holds at most EVENT_KINDS.length + 1 = 34
 * distinct kinds of at most 24 characters: about 1 KB. The environment's ONE subscriptions
 * item (subscriptions.ts) holds per endpoint its id (36 B), url (at most 2048 characters,
 * 8 KB in the worst UTF-8) and kinds: under 10 KB each, so 20 endpoints stay under 200 KB,
 * far from DynamoDB's 400 KB per item.
 */
export const MAX_REQUESTED_SUBSCRIPTIONS = 200;

export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** 422 URL_INVALID / URL_NOT_ALLOWED: an absolute http(s) URL, https unless private targets are allowed. */
export function urlRules(url: string): string {
  const pointer = attributePointer('url');
  const trimmed = url.trim();
  if ([...trimmed].length > URL_MAX) throw ruleBroken('URL_TOO_LONG', `url is too long (maximum is ${URL_MAX} characters)`, pointer);
  const parsed = URL.canParse(trimmed) ? new URL(trimmed) : undefined;
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || !parsed.hostname) {
    throw ruleBroken('URL_INVALID', 'url must be an absolute http or https URL', pointer);
  }
  if (parsed.username || parsed.password) throw ruleBroken('URL_INVALID', 'url must not carry credentials', pointer);
  if (!config.allowPrivateWebhookTargets) {
    if (parsed.protocol !== 'https:') throw ruleBroken('URL_NOT_ALLOWED', 'url must use https', pointer);
    if (isPlainlyPrivate(hostOf(parsed))) {
      throw ruleBroken('URL_NOT_ALLOWED', 'url must not point at a private, loopback or link-local address', pointer);
    }
  }
  return trimmed;
}

/** 422 SUBSCRIPTIONS_INVALID: `*` or kinds the service emits (EVENT_KINDS), each kept once. */
export function subscriptionRules(subscriptions: string[]): string[] {
  subscriptions.forEach((subscription, i) => {
    if (subscription !== '*' && !isEventKind(subscription)) {
      const shown = subscription.length > 64 ? `${subscription.slice(0, 64)}…` : subscription;
      const detail = `'${shown}' is not an event kind (${EVENT_KINDS.join(', ')}), nor *`;
      throw ruleBroken('SUBSCRIPTIONS_INVALID', detail, `${attributePointer('subscriptions')}/${i}`);
    }
  });
  return [...new Set(subscriptions)];
}

/** Whether the endpoint takes events of this kind now. */
export const subscribes = (endpoint: Pick<WebhookEndpointRecord, 'enabled' | 'subscriptions'>, event: string) =>
  endpoint.enabled && (endpoint.subscriptions.includes('*') || endpoint.subscriptions.includes(event));
