import { generateLicenseToken } from '#shared/domain/licenses/service.ts';
import { tokenDocument } from '#shared/domain/tokens/document.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** A license token: 200, like environment tokens; the value is shown only here. */
export const handler = operation('bearer', async (ctx) => {
  const { token, value } = await generateLicenseToken(ctx, ctx.params.id!);
  return ok(tokenDocument(token, value));
});
