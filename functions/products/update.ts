import { products } from '#shared/api/products.ts';
import { productDocument } from '#shared/domain/products/document.ts';
import { updateProduct } from '#shared/domain/products/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(products.update, async ({ actor, params, body }) =>
  ok(productDocument(await updateProduct(actor, params.id, body.data.attributes ?? {}))),
);
