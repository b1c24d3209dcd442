import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { productDocument } from '#shared/resources/products/document.ts';
import { products } from '#shared/resources/products/operations.ts';
import { updateProduct } from '#shared/resources/products/service.ts';

export const handler = operation(products.update, async ({ actor, params, body }) =>
  ok(productDocument(await updateProduct(actor, params.id, body.data.attributes ?? {}))),
);
