import { webhookEndpointDocument } from '#shared/domain/webhook-endpoints/document.ts';
import { listWebhookEndpoints } from '#shared/domain/webhook-endpoints/service.ts';
import { listReply, pageRequest } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => {
  const request = pageRequest(ctx.query);
  return listReply(ctx, request, await listWebhookEndpoints(ctx, request), (endpoint) => webhookEndpointDocument(endpoint));
});
