import { products } from '#shared/api/products.ts';
import { deleteProduct } from '#shared/domain/products/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(products.delete, async ({ actor, params }) => {
  await deleteProduct(actor, params.id);
  return noContent();
});
