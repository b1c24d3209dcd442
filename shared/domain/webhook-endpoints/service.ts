/**
 * Webhook endpoints (administrators only: shared/auth/policies/webhooks.ts). Every change emits
 * its `webhook-endpoint.*` event.
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { authorize, authorizeAction } from '../../auth/authorize.ts';
import type { Actor } from '../../auth/actor.ts';
import { emitEvent } from '../../events/emit.ts';
import { nonBlank, parseBody, resourceDocument, updateDocument } from '../../http/body.ts';
import { conflict, ruleBroken } from '../../errors.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { listCollection, type PageRequest } from '../../store/paging.ts';
import { toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { recordSubscription } from './subscriptions.ts';
import { now } from '../rules.ts';
import { webhookEndpointDocument } from './document.ts';
import { MAX_ENDPOINTS, MAX_REQUESTED_SUBSCRIPTIONS, newSigningSecret, subscriptionRules, urlRules, type WebhookEndpointRecord } from './endpoint.ts';

const createBody = resourceDocument('webhook-endpoints', {
  url: nonBlank(),
  subscriptions: z.optional(z.array(z.string()).check(z.maxLength(MAX_REQUESTED_SUBSCRIPTIONS))),
});

const updateBody = updateDocument('webhook-endpoints', {
  url: z.optional(nonBlank()),
  subscriptions: z.optional(z.array(z.string()).check(z.maxLength(MAX_REQUESTED_SUBSCRIPTIONS))),
  enabled: z.optional(z.boolean()),
});

export async function createWebhookEndpoint(ctx: Actor): Promise<WebhookEndpointRecord> {
  await authorizeAction(ctx, 'webhook-endpoints', 'create');
  const { attributes } = parseBody(ctx.body, createBody).data;
  const url = urlRules(attributes.url);
  const subscriptions = subscriptionRules(attributes.subscriptions ?? ['*']);
  const timestamp = now();
  const endpoint: WebhookEndpointRecord = {
    type: 'webhook-endpoints',
    id: randomUUID(),
    accountId: ctx.scope.accountId,
    environmentId: ctx.scope.environmentId,
    created: timestamp,
    updated: timestamp,
    url,
    subscriptions,
    enabled: true,
    signingSecret: newSigningSecret(),
  };
  const tx = new Transaction();
  tx.create(endpoint);
  recordSubscription(tx, endpoint);
  // Part of the counter's own update, so concurrent creates cannot pass the limit together.
  tx.cap(endpoint.accountId, endpoint.environmentId, 'webhook-endpoints', undefined, MAX_ENDPOINTS,
    ruleBroken('WEBHOOK_ENDPOINTS_LIMIT_EXCEEDED', `an environment has at most ${MAX_ENDPOINTS} webhook endpoints`));
  await emitEvent(tx, ctx.scope, 'webhook-endpoint.created', webhookEndpointDocument(endpoint));
  await tx.commit();
  return endpoint;
}

export async function retrieveWebhookEndpoint(ctx: Actor, id: string): Promise<WebhookEndpointRecord> {
  return toRecord<WebhookEndpointRecord>(await authorize(ctx, 'webhook-endpoints', id, 'read'));
}

export async function listWebhookEndpoints(ctx: Actor, page: PageRequest) {
  await authorizeAction(ctx, 'webhook-endpoints', 'list');
  return listCollection<WebhookEndpointRecord>(ctx.scope, { type: 'webhook-endpoints' }, page);
}

export async function updateWebhookEndpoint(ctx: Actor, id: string): Promise<WebhookEndpointRecord> {
  const item = await authorize(ctx, 'webhook-endpoints', id, 'update');
  const { attributes = {} } = parseBody(ctx.body, updateBody, item.id as string).data;
  const changes: Partial<WebhookEndpointRecord> = { updated: now() };
  if (attributes.url !== undefined) changes.url = urlRules(attributes.url);
  if (attributes.subscriptions !== undefined) changes.subscriptions = subscriptionRules(attributes.subscriptions);
  if (attributes.enabled !== undefined) changes.enabled = attributes.enabled;
  const tx = new Transaction();
  // Conditional on the endpoint as read: its subscriptions entry is rewritten whole from it.
  const next = toRecord<WebhookEndpointRecord>(tx.update(item, changes, {
    missing: new RecordNotFound('webhook-endpoints', id),
    unchanged: { updated: item.updated },
    conflict: conflict('The webhook endpoint changed while this request was made; retry it'),
  }));
  recordSubscription(tx, next);
  await emitEvent(tx, ctx.scope, 'webhook-endpoint.updated', webhookEndpointDocument(next));
  await tx.commit();
  return next;
}

/** Removes the endpoint; its webhook events stay (a retry of one then answers 422). */
export async function deleteWebhookEndpoint(ctx: Actor, id: string): Promise<void> {
  const item = await authorize(ctx, 'webhook-endpoints', id, 'delete');
  const tx = new Transaction();
  tx.delete(item, new RecordNotFound('webhook-endpoints', id));
  recordSubscription(tx, toRecord<WebhookEndpointRecord>(item), true);
  await emitEvent(tx, ctx.scope, 'webhook-endpoint.deleted', webhookEndpointDocument(toRecord<WebhookEndpointRecord>(item)));
  await tx.commit();
}
