import { products } from '#shared/api/products.ts';
import { productDocument } from '#shared/domain/products/document.ts';
import { retrieveProduct } from '#shared/domain/products/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(products.retrieve, async ({ actor, params }) =>
  ok(productDocument(await retrieveProduct(actor, params.id))),
);
