import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { webhookEndpoints } from '#shared/resources/webhook-endpoints/operations.ts';
import { deleteWebhookEndpoint } from '#shared/resources/webhook-endpoints/service.ts';

export const handler = operation(webhookEndpoints.delete, async ({ actor, params }) => {
  await deleteWebhookEndpoint(actor, params.id);
  return noContent();
});
