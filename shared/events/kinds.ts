/**
 * Every kind of webhook event the service emits, declared once: what an endpoint may subscribe
 * to (besides `*`). A change of a record is `<type>.created|updated|deleted` with the singular
 * type; the actions that are not plain changes (validations, check-outs, a license's lifecycle,
 * attaching and detaching entitlements, tokens, password resets, machine heartbeats) have kinds of
 * their own. Webhook events themselves emit nothing (their deliveries would feed on themselves).
 */
const TYPES = [
  'account',
  'user',
  'token',
  'environment',
  'product',
  'policy',
  'license',
  'machine',
  'component',
  'entitlement',
  'webhook-endpoint',
] as const;

export const EVENT_KINDS: readonly string[] = [
  ...TYPES.flatMap((type) => ['created', 'updated', 'deleted'].map((action) => `${type}.${action}`)),
  'license.checked-out',
  'machine.checked-out',
  // A license's lifecycle actions (revoke removes it: `license.revoked` instead of `license.deleted`).
  'license.suspended',
  'license.reinstated',
  'license.renewed',
  'license.revoked',
  // Every validation of a license that exists, by its verdict's `valid`, with the answer's meta.
  'license.validation.succeeded',
  'license.validation.failed',
  'token.generated',
  'user.password-reset',
  'policy.entitlements.attached',
  'policy.entitlements.detached',
  'license.entitlements.attached',
  'license.entitlements.detached',
  // Processes: no update; a ping, and the sweeper's removal of a dead one (docs/rules.md §14.4).
  'process.created',
  'process.deleted',
  'process.heartbeat.ping',
  'process.heartbeat.dead',
  // A machine's heartbeat (docs/rules.md §14.3): a ping, a reset, a late ping that revived it, and
  // its death as the sweeper found it (once per life).
  'machine.heartbeat.ping',
  'machine.heartbeat.reset',
  'machine.heartbeat.resurrected',
  'machine.heartbeat.dead',
];

export const isEventKind = (value: string) => EVENT_KINDS.includes(value);
