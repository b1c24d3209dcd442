import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { retrieveLicense } from '#shared/resources/licenses/service.ts';
import { productDocument } from '#shared/resources/products/document.ts';
import { products } from '#shared/resources/products/operations.ts';
import { relatedProduct } from '#shared/resources/products/service.ts';

/** GET /licenses/<id>/product */
export const handler = operation(products.ofLicense, async ({ actor, params }) =>
  ok(productDocument(await relatedProduct(actor, await retrieveLicense(actor, params.id)))),
);
