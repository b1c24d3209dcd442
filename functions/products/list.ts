import { products } from '#shared/api/products.ts';
import { productDocument } from '#shared/domain/products/document.ts';
import { listProducts } from '#shared/domain/products/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(products.list, async (call) =>
  listReply(call, await listProducts(call.actor, call.page), productDocument),
);
