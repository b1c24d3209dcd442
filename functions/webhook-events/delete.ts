import { webhookEvents } from '#shared/api/webhooks.ts';
import { deleteWebhookEvent } from '#shared/domain/webhook-events/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(webhookEvents.delete, async ({ actor, params }) => {
  await deleteWebhookEvent(actor, params.id);
  return noContent();
});
