import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { productDocument } from '#shared/resources/products/document.ts';
import { products } from '#shared/resources/products/operations.ts';
import { listUserProducts } from '#shared/resources/products/service.ts';

/** GET /users/<id>/products */
export const handler = operation(products.ofUser, async (call) =>
  listReply(call, await listUserProducts(call.actor, call.params.id, call.page), productDocument),
);
