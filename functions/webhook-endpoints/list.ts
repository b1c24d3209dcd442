import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { webhookEndpointDocument } from '#shared/resources/webhook-endpoints/document.ts';
import { webhookEndpoints } from '#shared/resources/webhook-endpoints/operations.ts';
import { listWebhookEndpoints } from '#shared/resources/webhook-endpoints/service.ts';

export const handler = operation(webhookEndpoints.list, async (call) =>
  listReply(call, await listWebhookEndpoints(call.actor, call.page), (endpoint) => webhookEndpointDocument(endpoint)),
);
