import { deleteEnvironment } from '#shared/domain/environments/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => {
  await deleteEnvironment(ctx, ctx.params.id!);
  return noContent();
});
