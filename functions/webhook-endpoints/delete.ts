import { webhookEndpoints } from '#shared/api/webhooks.ts';
import { deleteWebhookEndpoint } from '#shared/domain/webhook-endpoints/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(webhookEndpoints.delete, async ({ actor, params }) => {
  await deleteWebhookEndpoint(actor, params.id);
  return noContent();
});
