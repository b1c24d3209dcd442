import { productDocument } from '#shared/domain/products/document.ts';
import { retrieveProduct } from '#shared/domain/products/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => ok(productDocument(await retrieveProduct(ctx, ctx.params.id!))));
