import { deleteLicense } from '#shared/domain/licenses/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => {
  await deleteLicense(ctx, ctx.params.id!);
  return noContent();
});
