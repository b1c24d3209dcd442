/** A webhook endpoint's events (webhook events themselves emit none: their deliveries would feed on themselves). */
export const WEBHOOK_ENDPOINT_EVENTS = ['webhook-endpoint.created', 'webhook-endpoint.updated', 'webhook-endpoint.deleted'] as const;
