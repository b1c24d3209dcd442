import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { productDocument } from '#shared/resources/products/document.ts';
import { products } from '#shared/resources/products/operations.ts';
import { retrieveProduct } from '#shared/resources/products/service.ts';

export const handler = operation(products.retrieve, async ({ actor, params }) =>
  ok(productDocument(await retrieveProduct(actor, params.id))),
);
