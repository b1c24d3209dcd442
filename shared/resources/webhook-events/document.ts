import { accountRelationship, type ResourceObject, resourcePath, toOne } from '../../jsonapi.ts';
import { subscriptionsOf } from '../webhook-endpoints/subscriptions.ts';
import type { WebhookEventRecord } from './entity.ts';

/**
 * The webhook-event document (docs/rules.md §26.3): the same in the API and in a delivery's
 * body, but for the payload, whose secret meta values only the delivery reveals (it passes the
 * payload as delivered; the API shows the stored one, filtered). It links to its endpoint, as a
 * delivery and a retry, made to an endpoint that exists, may; the API's reads show events
 * through webhookEventDocumentsFor.
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

/**
 * The documents of `events` as the API shows them: an event outlives its endpoint, and keeps
 * naming it (`relationships.endpoint.data`, which endpoint it was for), but links to it only
 * while it exists, so that no link answers 404 (docs/rules.md §26.3, §9). Which endpoints exist is
 * read once, from the subscriptions item of the events' environment (one per environment
 * shown: an API request shows one), which every endpoint's create and delete writes with it.
 */
export async function webhookEventDocumentsFor(
  events: readonly WebhookEventRecord[],
): Promise<(event: WebhookEventRecord) => ResourceObject> {
  const first = events[0];
  if (!first) return (event) => webhookEventDocument(event);
  const environments = [...new Set(events.map((event) => event.environmentId))];
  const subscriptions = await Promise.all(environments.map((environmentId) => subscriptionsOf(first.accountId, environmentId)));
  const existing = new Set(subscriptions.flat().map((subscription) => subscription.id));
  return (event) => {
    const document = webhookEventDocument(event);
    if (existing.has(event.endpointId)) return document;
    const endpoint = { data: { type: 'webhook-endpoints', id: event.endpointId } };
    return { ...document, relationships: { ...document.relationships, endpoint } };
  };
}

/** The document of one event, as the API shows it. */
export const shownWebhookEvent = async (event: WebhookEventRecord): Promise<ResourceObject> =>
  (await webhookEventDocumentsFor([event]))(event);
