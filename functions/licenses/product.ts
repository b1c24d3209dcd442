import { products } from '#shared/api/products.ts';
import { retrieveLicense } from '#shared/domain/licenses/service.ts';
import { productDocument } from '#shared/domain/products/document.ts';
import { relatedProduct } from '#shared/domain/products/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /licenses/<id>/product */
export const handler = operation(products.ofLicense, async ({ actor, params }) =>
  ok(productDocument(await relatedProduct(actor, await retrieveLicense(actor, params.id)))),
);
