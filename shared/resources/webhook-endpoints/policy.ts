/**
 * Webhook endpoints and their events: administrators only; to every other bearer they do not
 * exist. An endpoint hears every change of its environment, secrets included (license keys,
 * reset tokens), and an event is one of them: pointing an endpoint somewhere or reading the
 * events is seeing all an administrator sees, so it takes a credential holding all an
 * administrator holds there (a narrowed token may still read endpoints, which hold no secret).
 */
import { heldBy } from '../../auth/held.ts';
import { administratorsOnly, definePolicy, holdsAll, isAdministrator, type Principal, type Verdict } from '../../auth/policies/policy.ts';

export function seesEverything(actor: Principal, what: string): Verdict {
  const verdict = administratorsOnly(actor, what);
  if (verdict !== true) return verdict;
  return (
    holdsAll(actor.bearer, heldBy('admin', actor.scope.environmentId)) ||
    `Only a credential holding every administrator permission may ${what}`
  );
}

export const webhookEndpointPolicy = definePolicy({
  permissions: {
    create: 'webhook-endpoint.create',
    list: 'webhook-endpoint.read',
    read: 'webhook-endpoint.read',
    update: 'webhook-endpoint.update',
    delete: 'webhook-endpoint.delete',
  },
  writes: new Set(['update', 'delete']),
  reaches: (actor) => isAdministrator(actor.bearer),
  may: (actor, action) =>
    ['create', 'update'].includes(action)
      ? seesEverything(actor, `${action} webhook endpoints`)
      : administratorsOnly(actor, `${action} webhook endpoints`),
});
