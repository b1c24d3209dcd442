import { deleteWebhookEndpoint } from '#shared/domain/webhook-endpoints/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => {
  await deleteWebhookEndpoint(ctx, ctx.params.id!);
  return noContent();
});
