/**
 * A license's events: its changes, its check-outs, its lifecycle (revoke removes it:
 * `license.revoked` instead of `license.deleted`), and every validation of it by its verdict's
 * `valid`, with the answer's meta.
 */
export const LICENSE_EVENTS = [
  'license.created',
  'license.updated',
  'license.deleted',
  'license.checked-out',
  'license.checked-in',
  'license.suspended',
  'license.reinstated',
  'license.renewed',
  'license.revoked',
  'license.owner.updated',
  'license.policy.updated',
  'license.usage.incremented',
  'license.usage.decremented',
  'license.usage.reset',
  'license.validation.succeeded',
  'license.validation.failed',
] as const;
