/** An entitlement's events, and those of attaching entitlements to policies and licenses and detaching them. */
export const ENTITLEMENT_EVENTS = [
  'entitlement.created',
  'entitlement.updated',
  'entitlement.deleted',
  'policy.entitlements.attached',
  'policy.entitlements.detached',
  'license.entitlements.attached',
  'license.entitlements.detached',
] as const;
