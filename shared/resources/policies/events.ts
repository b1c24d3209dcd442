/** A policy's events (its entitlements' attachments: shared/resources/entitlements/). */
export const POLICY_EVENTS = ['policy.created', 'policy.updated', 'policy.deleted', 'policy.pool.popped'] as const;
