import { products } from '#shared/api/products.ts';
import { productDocument } from '#shared/domain/products/document.ts';
import { createProduct } from '#shared/domain/products/service.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(products.create, async ({ actor, body }) =>
  created(productDocument(await createProduct(actor, body.data.attributes))),
);
