import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { webhookEndpointDocument } from '#shared/resources/webhook-endpoints/document.ts';
import { webhookEndpoints } from '#shared/resources/webhook-endpoints/operations.ts';
import { createWebhookEndpoint } from '#shared/resources/webhook-endpoints/service.ts';

/** The signing secret is shown in this response only. */
export const handler = operation(webhookEndpoints.create, async ({ actor, body }) =>
  created(webhookEndpointDocument(await createWebhookEndpoint(actor, body.data.attributes), true)),
);
