import { webhookEvents } from '#shared/api/webhooks.ts';
import { webhookEventDocument } from '#shared/domain/webhook-events/document.ts';
import { listWebhookEvents } from '#shared/domain/webhook-events/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /webhook-events, filtered by `events[]=<kind>` (several allowed) or `endpoint=<id>`. */
export const handler = operation(webhookEvents.list, async (call) =>
  listReply(call, await listWebhookEvents(call.actor, call.query, call.page), webhookEventDocument),
);
