import { webhookEndpoints } from '#shared/api/webhooks.ts';
import { webhookEndpointDocument } from '#shared/domain/webhook-endpoints/document.ts';
import { retrieveWebhookEndpoint } from '#shared/domain/webhook-endpoints/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(webhookEndpoints.retrieve, async ({ actor, params }) =>
  ok(webhookEndpointDocument(await retrieveWebhookEndpoint(actor, params.id))),
);
