import { accountRelationship, type ResourceObject, resourcePath, toOne } from '../../jsonapi.ts';
import type { WebhookEndpointRecord } from './entity.ts';

/** The endpoint document; the signing secret only when `withSecret` (the create response). */
export function webhookEndpointDocument(endpoint: WebhookEndpointRecord, withSecret = false): ResourceObject {
  const self = resourcePath(endpoint.accountId, 'webhook-endpoints', endpoint.id);
  return {
    id: endpoint.id,
    type: 'webhook-endpoints',
    attributes: {
      url: endpoint.url,
      subscriptions: endpoint.subscriptions,
      enabled: endpoint.enabled,
      ...(withSecret ? { signingSecret: endpoint.signingSecret } : {}),
      created: endpoint.created,
      updated: endpoint.updated,
    },
    relationships: {
      account: accountRelationship(endpoint.accountId),
      environment: toOne(endpoint.accountId, 'environments', endpoint.environmentId),
    },
    links: { self },
  };
}
