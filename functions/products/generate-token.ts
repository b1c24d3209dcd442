import { products } from '#shared/api/products.ts';
import { generateProductToken } from '#shared/domain/products/service.ts';
import { tokenDocument } from '#shared/domain/tokens/document.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** A product token: 200, like environment tokens; the value is shown only here. */
export const handler = operation(products.tokensGenerate, async ({ actor, params, body }) => {
  const { token, value } = await generateProductToken(actor, params.id, body?.data.attributes ?? {});
  return ok(tokenDocument(token, value));
});
