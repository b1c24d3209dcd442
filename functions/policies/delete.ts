import { deletePolicy } from '#shared/domain/policies/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => {
  await deletePolicy(ctx, ctx.params.id!);
  return noContent();
});
