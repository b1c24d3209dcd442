import { processes } from '#shared/api/processes.ts';
import { retrieveProcess } from '#shared/domain/processes/service.ts';
import { productDocument } from '#shared/domain/products/document.ts';
import { relatedProduct } from '#shared/domain/products/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /processes/<id>/product */
export const handler = operation(processes.product, async ({ actor, params }) =>
  ok(productDocument(await relatedProduct(actor, await retrieveProcess(actor, params.id)))),
);
