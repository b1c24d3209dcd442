import { deleteWebhookEvent } from '#shared/domain/webhook-events/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => {
  await deleteWebhookEvent(ctx, ctx.params.id!);
  return noContent();
});
