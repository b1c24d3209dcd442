import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { processes } from '#shared/resources/processes/operations.ts';
import { retrieveProcess } from '#shared/resources/processes/service.ts';
import { productDocument } from '#shared/resources/products/document.ts';
import { relatedProduct } from '#shared/resources/products/service.ts';

/** GET /processes/<id>/product */
export const handler = operation(processes.product, async ({ actor, params }) =>
  ok(productDocument(await relatedProduct(actor, await retrieveProcess(actor, params.id)))),
);
