import { productDocument } from '#shared/domain/products/document.ts';
import { updateProduct } from '#shared/domain/products/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => ok(productDocument(await updateProduct(ctx, ctx.params.id!))));
