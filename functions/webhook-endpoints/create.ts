import { webhookEndpoints } from '#shared/api/webhooks.ts';
import { webhookEndpointDocument } from '#shared/domain/webhook-endpoints/document.ts';
import { createWebhookEndpoint } from '#shared/domain/webhook-endpoints/service.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** The signing secret is shown in this response only. */
export const handler = operation(webhookEndpoints.create, async ({ actor, body }) =>
  created(webhookEndpointDocument(await createWebhookEndpoint(actor, body.data.attributes), true)),
);
