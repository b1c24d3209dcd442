import { webhookEventDocument } from '#shared/domain/webhook-events/document.ts';
import { listWebhookEvents } from '#shared/domain/webhook-events/service.ts';
import { listReply, pageRequest } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /webhook-events, filtered by `events[]=<kind>` (several allowed) or `endpoint=<id>`. */
export const handler = operation('bearer', async (ctx) => {
  const request = pageRequest(ctx.query);
  return listReply(ctx, request, await listWebhookEvents(ctx, request), webhookEventDocument);
});
