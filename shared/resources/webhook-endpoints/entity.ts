/**
 * Webhook endpoints (docs/rules.md §26.1): where an environment's events are delivered. An endpoint
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
import { eventKinds, isEventKind } from '../../events/kinds.ts';
import { hostOf, isPlainlyPrivate } from '../../events/targets.ts';
import type { AccessPattern } from '../../store/data-model.ts';
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
/**
 * Endpoints per environment: every change writes one event per endpoint in its own transaction,
 * and they all share the environment's ONE subscriptions item (subscriptions.ts). That item at
 * its largest, by DynamoDB's measure (an attribute: its name's UTF-8 bytes and its value's; a
 * string: its UTF-8 bytes; a map or a list: 3 bytes, and per element 1 byte besides the
 * element's name and value; a boolean: 1 byte):
 *
 *   per endpoint, the attribute `endpoint#<id>` (45 bytes) holding a map (3 bytes) of
 *     id             1 + 2 + 36                =    39
 *     url            1 + 3 + 4 × URL_MAX       = 8,196  (URL_MAX characters, at most 4 UTF-8 bytes each)
 *     enabled        1 + 7 + 1                 =     9
 *     subscriptions  1 + 13 + 3 + Σ (1 + length) over `*` and the kinds, each kept once by
 *                    subscriptionRules: 56 of them, 1,065 bytes with today's eventKinds()
 *                                              = 1,082
 *   = 9,374 bytes an endpoint; × MAX_ENDPOINTS = 187,480 bytes; with the item's PK, SK and
 *   ENVPK (under 300 bytes), under 188 KB: less than half of DynamoDB's 400 KB per item, so
 *   new kinds have room. test/unit/webhook-subscriptions-size.test.ts recomputes this from the
 *   constants; test/http/input-bounds.test.ts writes that largest item.
 */
export const MAX_ENDPOINTS = 20;
/**
 * What a body may send: each kind and `*` a few times over (duplicates are dropped), none longer
 * than room for a kind yet to come (the longest now has 29 characters); past that, refused
 * cheaply (400) rather than named back in a 422.
 */
export const MAX_REQUESTED_SUBSCRIPTIONS = 200;
export const MAX_SUBSCRIPTION_LENGTH = 64;

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

/** 422 SUBSCRIPTIONS_INVALID: `*` or kinds the service emits (eventKinds()), each kept once. */
export function subscriptionRules(subscriptions: string[]): string[] {
  subscriptions.forEach((subscription, i) => {
    if (subscription !== '*' && !isEventKind(subscription)) {
      const detail = `'${subscription}' is not an event kind (${eventKinds().join(', ')}), nor *`;
      throw ruleBroken('SUBSCRIPTIONS_INVALID', detail, `${attributePointer('subscriptions')}/${i}`);
    }
  });
  return [...new Set(subscriptions)];
}

/** Whether the endpoint takes events of this kind now. */
export const subscribes = (endpoint: Pick<WebhookEndpointRecord, 'enabled' | 'subscriptions'>, event: string) =>
  endpoint.enabled && (endpoint.subscriptions.includes('*') || endpoint.subscriptions.includes(event));

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 15,
    name: "An environment's webhook subscriptions",
    operation: 'BatchGetItem (read ahead for every method but GET), else GetItem',
    index: 'table',
    key: '`PK = A#<acct>#E#<env>#WEBHOOK_SUBSCRIPTIONS`',
    usedBy: '`emitEvent`, on every change; `GET /webhook-events` and `/webhook-events/<id>`: which endpoints still exist (their link)',
    tests: ['store/data-model'],
  },
];
