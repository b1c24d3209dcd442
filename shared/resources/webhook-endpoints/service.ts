/**
 * Webhook endpoints (administrators only: shared/resources/webhook-endpoints/policy.ts). Every change emits
 * its `webhook-endpoint.*` event.
 */
import type { Actor } from '../../auth/actor.ts';
import { authorize, authorizeAction } from '../../auth/authorize.ts';
import { conflict, ruleBroken } from '../../errors.ts';
import { emitEvent } from '../../events/emit.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { listCollection, type PageRequest } from '../../store/paging.ts';
import { toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { newRecord, now } from '../rules.ts';
import { webhookEndpointDocument } from './document.ts';
import { MAX_ENDPOINTS, newSigningSecret, subscriptionRules, urlRules, type WebhookEndpointRecord } from './entity.ts';
import { recordSubscription } from './subscriptions.ts';

export interface NewWebhookEndpoint {
  url: string;
  /** Event kinds, or `*` (the default) for every kind. */
  subscriptions?: string[];
}

export interface WebhookEndpointChanges {
  url?: string;
  subscriptions?: string[];
  enabled?: boolean;
}

export async function createWebhookEndpoint(actor: Actor, input: NewWebhookEndpoint): Promise<WebhookEndpointRecord> {
  await authorizeAction(actor, 'webhook-endpoints', 'create');
  const url = urlRules(input.url);
  const subscriptions = subscriptionRules(input.subscriptions ?? ['*']);
  const endpoint: WebhookEndpointRecord = {
    ...newRecord('webhook-endpoints', actor.scope),
    url,
    subscriptions,
    enabled: true,
    signingSecret: newSigningSecret(),
  };
  const tx = new Transaction();
  tx.create(endpoint);
  recordSubscription(tx, endpoint);
  // Part of the counter's own update, so concurrent creates cannot pass the limit together.
  tx.cap(
    endpoint.accountId,
    endpoint.environmentId,
    'webhook-endpoints',
    undefined,
    MAX_ENDPOINTS,
    ruleBroken('WEBHOOK_ENDPOINTS_LIMIT_EXCEEDED', `an environment has at most ${MAX_ENDPOINTS} webhook endpoints`),
  );
  await emitEvent(tx, actor.scope, 'webhook-endpoint.created', webhookEndpointDocument(endpoint));
  await tx.commit();
  return endpoint;
}

export async function retrieveWebhookEndpoint(actor: Actor, id: string): Promise<WebhookEndpointRecord> {
  return toRecord('webhook-endpoints', await authorize(actor, 'webhook-endpoints', id, 'read'));
}

export async function listWebhookEndpoints(actor: Actor, page: PageRequest) {
  await authorizeAction(actor, 'webhook-endpoints', 'list');
  return listCollection(actor.scope, { type: 'webhook-endpoints' }, page);
}

export async function updateWebhookEndpoint(actor: Actor, id: string, changes: WebhookEndpointChanges): Promise<WebhookEndpointRecord> {
  const item = await authorize(actor, 'webhook-endpoints', id, 'update');
  const written: Partial<WebhookEndpointRecord> = { updated: now() };
  if (changes.url !== undefined) written.url = urlRules(changes.url);
  if (changes.subscriptions !== undefined) written.subscriptions = subscriptionRules(changes.subscriptions);
  if (changes.enabled !== undefined) written.enabled = changes.enabled;
  const tx = new Transaction();
  // Conditional on the endpoint as read: its subscriptions entry is rewritten whole from it.
  const next = toRecord(
    'webhook-endpoints',
    tx.update(item, written, {
      missing: new RecordNotFound('webhook-endpoints', id),
      unchanged: { updated: item.updated },
      conflict: conflict('The webhook endpoint changed while this request was made; retry it'),
    }),
  );
  recordSubscription(tx, next);
  await emitEvent(tx, actor.scope, 'webhook-endpoint.updated', webhookEndpointDocument(next));
  await tx.commit();
  return next;
}

/** Removes the endpoint; its webhook events stay (a retry of one then answers 422). */
export async function deleteWebhookEndpoint(actor: Actor, id: string): Promise<void> {
  const item = await authorize(actor, 'webhook-endpoints', id, 'delete');
  const tx = new Transaction();
  tx.delete(item, new RecordNotFound('webhook-endpoints', id));
  recordSubscription(tx, toRecord('webhook-endpoints', item), true);
  await emitEvent(tx, actor.scope, 'webhook-endpoint.deleted', webhookEndpointDocument(toRecord('webhook-endpoints', item)));
  await tx.commit();
}
