import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { webhookEndpointDocument } from '#shared/resources/webhook-endpoints/document.ts';
import { webhookEndpoints } from '#shared/resources/webhook-endpoints/operations.ts';
import { retrieveWebhookEndpoint } from '#shared/resources/webhook-endpoints/service.ts';

export const handler = operation(webhookEndpoints.retrieve, async ({ actor, params }) =>
  ok(webhookEndpointDocument(await retrieveWebhookEndpoint(actor, params.id))),
);
