import { webhookEvents } from '#shared/api/webhooks.ts';
import { webhookEventDocumentsFor } from '#shared/domain/webhook-events/document.ts';
import { listWebhookEvents } from '#shared/domain/webhook-events/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /webhook-events, filtered by `events[]=<kind>` (several allowed) or `endpoint=<id>`. */
export const handler = operation(webhookEvents.list, async (call) => {
  const page = await listWebhookEvents(call.actor, call.query, call.page);
  return listReply(call, page, await webhookEventDocumentsFor(page.records));
});
