import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { webhookEvents } from '#shared/resources/webhook-events/operations.ts';
import { deleteWebhookEvent } from '#shared/resources/webhook-events/service.ts';

export const handler = operation(webhookEvents.delete, async ({ actor, params }) => {
  await deleteWebhookEvent(actor, params.id);
  return noContent();
});
