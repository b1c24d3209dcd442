import { generateProductToken } from '#shared/domain/products/service.ts';
import { tokenDocument } from '#shared/domain/tokens/document.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** A product token: 200, like environment tokens; the value is shown only here. */
export const handler = operation('bearer', async (ctx) => {
  const { token, value } = await generateProductToken(ctx, ctx.params.id!);
  return ok(tokenDocument(token, value));
});
