/** Webhook endpoints and their events: administrators only; to every other bearer they do not exist. */
import { administratorsOnly, isAdministrator, type Policy } from './policy.ts';

export const webhookEndpoints: Policy = {
  permissions: {
    create: 'webhook-endpoint.create',
    list: 'webhook-endpoint.read',
    read: 'webhook-endpoint.read',
    update: 'webhook-endpoint.update',
    delete: 'webhook-endpoint.delete',
  },
  writes: new Set(['update', 'delete']),
  reaches: (actor) => isAdministrator(actor.bearer),
  may: (actor, action) => administratorsOnly(actor, `${action} webhook endpoints`),
};

export const webhookEvents: Policy = {
  permissions: { list: 'webhook-event.read', read: 'webhook-event.read', delete: 'webhook-event.delete', retry: 'webhook-event.retry' },
  writes: new Set(['delete', 'retry']),
  reaches: (actor) => isAdministrator(actor.bearer),
  may: (actor, action) => administratorsOnly(actor, `${action} webhook events`),
};
