import { licenses } from '#shared/api/licenses.ts';
import { generateLicenseToken } from '#shared/domain/licenses/service.ts';
import { tokenDocument } from '#shared/domain/tokens/document.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** A license token: 200, like environment tokens; the value is shown only here. */
export const handler = operation(licenses.tokensGenerate, async ({ actor, params, body }) => {
  const { token, value } = await generateLicenseToken(actor, params.id, body?.data.attributes ?? {});
  return ok(tokenDocument(token, value));
});
