import { deleteMachine } from '#shared/domain/machines/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => {
  await deleteMachine(ctx, ctx.params.id!);
  return noContent();
});
