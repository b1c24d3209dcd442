import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { components } from '#shared/resources/components/operations.ts';
import { retrieveComponent } from '#shared/resources/components/service.ts';
import { productDocument } from '#shared/resources/products/document.ts';
import { relatedProduct } from '#shared/resources/products/service.ts';

/** GET /components/<id>/product */
export const handler = operation(components.product, async ({ actor, params }) =>
  ok(productDocument(await relatedProduct(actor, await retrieveComponent(actor, params.id)))),
);
