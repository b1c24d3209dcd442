/** Webhook events: administrators only (shared/resources/webhook-endpoints/policy.ts says why). */
import { administratorsOnly, definePolicy, isAdministrator } from '../../auth/policies/policy.ts';
import { seesEverything } from '../webhook-endpoints/policy.ts';

export const webhookEventPolicy = definePolicy({
  permissions: { list: 'webhook-event.read', read: 'webhook-event.read', delete: 'webhook-event.delete', retry: 'webhook-event.retry' },
  writes: new Set(['delete', 'retry']),
  reaches: (actor) => isAdministrator(actor.bearer),
  may: (actor, action) =>
    action === 'delete' ? administratorsOnly(actor, 'delete webhook events') : seesEverything(actor, `${action} webhook events`),
});
