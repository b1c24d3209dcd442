import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { productDocument } from '#shared/resources/products/document.ts';
import { products } from '#shared/resources/products/operations.ts';
import { listProducts } from '#shared/resources/products/service.ts';

export const handler = operation(products.list, async (call) =>
  listReply(call, await listProducts(call.actor, call.page), productDocument),
);
