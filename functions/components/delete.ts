import { deleteComponent } from '#shared/domain/components/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => {
  await deleteComponent(ctx, ctx.params.id!);
  return noContent();
});
