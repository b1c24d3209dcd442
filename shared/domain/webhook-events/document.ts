import { accountRelationship, type ResourceObject, resourcePath, toOne } from '../../jsonapi.ts';
import type { WebhookEventRecord } from './event.ts';

/**
 * The webhook-event document (docs/rules.md §5): the same in the API and in a delivery's
 * body, but for the payload, whose secret meta values only the delivery reveals (it passes the
 * payload as delivered; the API shows the stored one, filtered).
 */
export function webhookEventDocument(event: WebhookEventRecord, payload = event.payload): ResourceObject {
  return {
    id: event.id,
    type: 'webhook-events',
    meta: { idempotencyToken: event.idempotencyToken },
    attributes: {
      endpoint: event.endpoint,
      payload,
      event: event.event,
      status: event.status,
      // A removed attribute (null written through an update) reads back as absent.
      lastResponseCode: event.lastResponseCode ?? null,
      lastResponseBody: event.lastResponseBody ?? null,
      created: event.created,
      updated: event.updated,
    },
    relationships: {
      account: accountRelationship(event.accountId),
      environment: toOne(event.accountId, 'environments', event.environmentId),
      endpoint: toOne(event.accountId, 'webhook-endpoints', event.endpointId),
    },
    links: { self: resourcePath(event.accountId, 'webhook-events', event.id) },
  };
}
