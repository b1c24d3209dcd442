import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { productDocument } from '#shared/resources/products/document.ts';
import { products } from '#shared/resources/products/operations.ts';
import { createProduct } from '#shared/resources/products/service.ts';

export const handler = operation(products.create, async ({ actor, body }) =>
  created(productDocument(await createProduct(actor, body.data.attributes))),
);
