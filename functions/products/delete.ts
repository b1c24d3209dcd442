import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { products } from '#shared/resources/products/operations.ts';
import { deleteProduct } from '#shared/resources/products/service.ts';

export const handler = operation(products.delete, async ({ actor, params }) => {
  await deleteProduct(actor, params.id);
  return noContent();
});
