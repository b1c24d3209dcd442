/**
 * Webhook events (docs/rules.md §26.3): one record per delivery of one change
 * to one endpoint. Its id and idempotency token are fixed at birth; a retry is a new record
 * with a new id and the same token.
 *
 * Collections: every event of the environment (GSI1), the events of one endpoint (GSI2) and
 * the events of one kind (GSI3, under the pseudo-parent `webhook-kinds/<kind>`), the last so
 * that the `events[]` filter is a key lookup.
 */
import { randomUUID } from 'node:crypto';
import { randomSecret } from '../../auth/secrets.ts';
import type { AccessPattern } from '../../store/data-model.ts';
import type { StoredRecord } from '../../store/records.ts';
import type { Transaction } from '../../store/transaction.ts';
import { now } from '../rules.ts';

export type WebhookEventStatus = 'DELIVERING' | 'DELIVERED' | 'FAILING' | 'FAILED';

export interface WebhookEventRecord extends StoredRecord {
  type: 'webhook-events';
  endpointId: string;
  /** The endpoint's URL when the event was born: where it is delivered. */
  endpoint: string;
  /** The resource document (`{data, meta?}`) serialised as a string. */
  payload: string;
  event: string;
  status: WebhookEventStatus;
  lastResponseCode: number | null;
  lastResponseBody: string | null;
  idempotencyToken: string;
  /**
   * The payload's secret meta values, sealed (events/secret-meta.ts); the payload holds
   * "[FILTERED]" in their place. Delivered, never shown.
   */
  sealedMeta?: string;
}

/** The event's parent collections: its endpoint (GSI2), its kind (GSI3). */
export const ENDPOINT_SLOT = 0;
export const KIND_SLOT = 1;

export const FINAL_STATUSES: readonly WebhookEventStatus[] = ['DELIVERED', 'FAILED'];

export interface NewWebhookEvent {
  accountId: string;
  environmentId: string | null;
  endpointId: string;
  endpoint: string;
  payload: string;
  event: string;
  /** Given for a retry (and when sealed meta is bound to it); a new event gets a new one. */
  idempotencyToken?: string;
  sealedMeta?: string;
}

/** Adds a DELIVERING webhook event to a transaction, in its three collections. */
export function addWebhookEvent(tx: Transaction, input: NewWebhookEvent): WebhookEventRecord {
  const timestamp = now();
  const record: WebhookEventRecord = {
    type: 'webhook-events',
    id: randomUUID(),
    accountId: input.accountId,
    environmentId: input.environmentId,
    created: timestamp,
    updated: timestamp,
    endpointId: input.endpointId,
    endpoint: input.endpoint,
    payload: input.payload,
    event: input.event,
    status: 'DELIVERING',
    lastResponseCode: null,
    lastResponseBody: null,
    idempotencyToken: input.idempotencyToken ?? randomSecret(),
    ...(input.sealedMeta !== undefined && { sealedMeta: input.sealedMeta }),
  };
  tx.create(record, {
    parents: [
      { type: 'webhook-endpoints', id: input.endpointId },
      { type: 'webhook-kinds', id: input.event },
    ],
  });
  return record;
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 16,
    name: 'Webhook events of an endpoint',
    operation: 'Query (backwards)',
    index: 'GSI2',
    key: '`GSI2PK = A#<acct>#E#<env>#WEBHOOK_ENDPOINT#<id>#WEBHOOK_EVENT`',
    usedBy: '`GET /webhook-events?endpoint=<id>`',
    tests: ['store/data-model'],
  },
  {
    n: 17,
    name: 'Webhook events of any of several kinds',
    operation: 'Query (backwards) per kind, merged',
    index: 'GSI3',
    key: '`GSI3PK = A#<acct>#E#<env>#WEBHOOK_KIND#<kind>#WEBHOOK_EVENT`, one partition per `events[]` value (and per readable environment)',
    usedBy: '`GET /webhook-events?events[]=...`',
    tests: ['store/data-model'],
  },
  {
    n: 60,
    name: 'Webhook events that never left: `DELIVERING`, no attempt claimed, older than a cutoff',
    operation:
      'Per account and environment: Query (backwards) of the events collection below the cutoff, FilterExpression `#status = :delivering AND attribute_not_exists(deliveryAttempt)`; across the table, for an operator recovering after a relay failure: Scan with `type = webhook-events` and the same filter and cutoff on `created` (docs/operations.md, "The outbox relay")',
    index: 'GSI1; table (operator scan)',
    key: '`GSI1PK = A#<acct>#E#<env or ->#WEBHOOK_EVENT AND GSI1SK < <cutoff>` (the sort key begins with `created`)',
    usedBy: 'operators',
    tests: ['http/outbox'],
  },
];
