import { components } from '#shared/api/components.ts';
import { retrieveComponent } from '#shared/domain/components/service.ts';
import { productDocument } from '#shared/domain/products/document.ts';
import { relatedProduct } from '#shared/domain/products/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /components/<id>/product */
export const handler = operation(components.product, async ({ actor, params }) =>
  ok(productDocument(await relatedProduct(actor, await retrieveComponent(actor, params.id)))),
);
