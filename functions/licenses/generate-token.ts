import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { licenses } from '#shared/resources/licenses/operations.ts';
import { generateLicenseToken } from '#shared/resources/licenses/service.ts';
import { tokenDocument } from '#shared/resources/tokens/document.ts';

/** A license token: 200, like environment tokens; the value is shown only here. */
export const handler = operation(licenses.tokensGenerate, async ({ actor, params, body }) => {
  const { token, value } = await generateLicenseToken(actor, params.id, body?.data.attributes ?? {});
  return ok(tokenDocument(token, value));
});
