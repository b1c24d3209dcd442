import { webhookEndpoints } from '#shared/api/webhooks.ts';
import { webhookEndpointDocument } from '#shared/domain/webhook-endpoints/document.ts';
import { listWebhookEndpoints } from '#shared/domain/webhook-endpoints/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(webhookEndpoints.list, async (call) =>
  listReply(call, await listWebhookEndpoints(call.actor, call.page), (endpoint) => webhookEndpointDocument(endpoint)),
);
