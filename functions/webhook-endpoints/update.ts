import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { webhookEndpointDocument } from '#shared/resources/webhook-endpoints/document.ts';
import { webhookEndpoints } from '#shared/resources/webhook-endpoints/operations.ts';
import { updateWebhookEndpoint } from '#shared/resources/webhook-endpoints/service.ts';

export const handler = operation(webhookEndpoints.update, async ({ actor, params, body }) =>
  ok(webhookEndpointDocument(await updateWebhookEndpoint(actor, params.id, body.data.attributes ?? {}))),
);
