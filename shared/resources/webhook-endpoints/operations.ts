/** The webhook endpoints' operations: what each reads of a request, and what it answers. */

import * as z from 'zod/mini';
import { ACCOUNT, EMIT, READ } from '../../access.ts';
import { nonBlank, resourceDocument, updateDocument } from '../../http/body.ts';
import { declare } from '../../http/declaration.ts';
import { MAX_REQUESTED_SUBSCRIPTIONS, MAX_SUBSCRIPTION_LENGTH } from './entity.ts';

const subscriptions = () =>
  z.optional(z.array(z.string().check(z.maxLength(MAX_SUBSCRIPTION_LENGTH))).check(z.maxLength(MAX_REQUESTED_SUBSCRIPTIONS)));

export const webhookEndpoints = {
  create: declare({
    operation: 'webhookEndpoints.create',
    authorizes: { type: 'webhook-endpoints', action: 'create' },
    method: 'POST',
    path: `${ACCOUNT}/webhook-endpoints`,
    access: EMIT,
    summary: 'Create a webhook endpoint (its signing secret is shown in this answer only)',
    auth: 'bearer',
    body: resourceDocument('webhook-endpoints', { url: nonBlank(), subscriptions: subscriptions() }),
    answers: { 201: { resource: 'webhook-endpoints' } },
    faults: [403, 422],
  }),
  list: declare({
    operation: 'webhookEndpoints.list',
    authorizes: { type: 'webhook-endpoints', action: 'list' },
    method: 'GET',
    path: `${ACCOUNT}/webhook-endpoints`,
    access: READ,
    summary: 'List webhook endpoints',
    auth: 'bearer',
    paged: true,
    answers: { 200: { list: 'webhook-endpoints' } },
    faults: [403],
  }),
  retrieve: declare({
    operation: 'webhookEndpoints.retrieve',
    authorizes: { type: 'webhook-endpoints', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/webhook-endpoints/{id}`,
    access: READ,
    summary: 'Retrieve a webhook endpoint',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'webhook-endpoints' } },
    faults: [403],
  }),
  update: declare({
    operation: 'webhookEndpoints.update',
    authorizes: { type: 'webhook-endpoints', action: 'update', record: true },
    method: 'PATCH',
    path: `${ACCOUNT}/webhook-endpoints/{id}`,
    access: EMIT,
    summary: 'Update a webhook endpoint',
    auth: 'bearer',
    params: ['id'],
    body: updateDocument('webhook-endpoints', {
      url: z.optional(nonBlank()),
      subscriptions: subscriptions(),
      enabled: z.optional(z.boolean()),
    }),
    answers: { 200: { resource: 'webhook-endpoints' } },
    faults: [403, 409, 422],
  }),
  remove: declare({
    operation: 'webhookEndpoints.delete',
    authorizes: { type: 'webhook-endpoints', action: 'delete', record: true },
    method: 'DELETE',
    path: `${ACCOUNT}/webhook-endpoints/{id}`,
    access: EMIT,
    summary: 'Delete a webhook endpoint (its events stay)',
    auth: 'bearer',
    params: ['id'],
    answers: { 204: { empty: true } },
    faults: [403],
  }),
};
