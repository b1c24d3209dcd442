import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { products } from '#shared/resources/products/operations.ts';
import { generateProductToken } from '#shared/resources/products/service.ts';
import { tokenDocument } from '#shared/resources/tokens/document.ts';

/** A product token: 200, like environment tokens; the value is shown only here. */
export const handler = operation(products.tokensGenerate, async ({ actor, params, body }) => {
  const { token, value } = await generateProductToken(actor, params.id, body?.data.attributes ?? {});
  return ok(tokenDocument(token, value));
});
