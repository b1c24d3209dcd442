import { productDocument } from '#shared/domain/products/document.ts';
import { listProducts } from '#shared/domain/products/service.ts';
import { listReply, pageRequest } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => {
  const request = pageRequest(ctx.query);
  return listReply(ctx, request, await listProducts(ctx, request), productDocument);
});
