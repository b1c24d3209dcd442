import { products } from '#shared/api/products.ts';
import { productDocument } from '#shared/domain/products/document.ts';
import { listUserProducts } from '#shared/domain/products/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /users/<id>/products */
export const handler = operation(products.ofUser, async (call) =>
  listReply(call, await listUserProducts(call.actor, call.params.id, call.page), productDocument),
);
