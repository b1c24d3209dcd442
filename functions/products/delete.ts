import { deleteProduct } from '#shared/domain/products/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => {
  await deleteProduct(ctx, ctx.params.id!);
  return noContent();
});
