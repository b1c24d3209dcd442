import { webhookEndpoints } from '#shared/api/webhooks.ts';
import { webhookEndpointDocument } from '#shared/domain/webhook-endpoints/document.ts';
import { updateWebhookEndpoint } from '#shared/domain/webhook-endpoints/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(webhookEndpoints.update, async ({ actor, params, body }) =>
  ok(webhookEndpointDocument(await updateWebhookEndpoint(actor, params.id, body.data.attributes ?? {}))),
);
