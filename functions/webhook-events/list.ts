import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { webhookEventDocumentsFor } from '#shared/resources/webhook-events/document.ts';
import { webhookEvents } from '#shared/resources/webhook-events/operations.ts';
import { listWebhookEvents } from '#shared/resources/webhook-events/service.ts';

/** GET /webhook-events, filtered by `events[]=<kind>` (several allowed) or `endpoint=<id>`. */
export const handler = operation(webhookEvents.list, async (call) => {
  const page = await listWebhookEvents(call.actor, call.query, call.page);
  return listReply(call, page, await webhookEventDocumentsFor(page.records));
});
