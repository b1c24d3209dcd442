import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { environments } from '#shared/resources/environments/operations.ts';
import { generateEnvironmentToken } from '#shared/resources/environments/service.ts';
import { tokenDocument } from '#shared/resources/tokens/document.ts';

/** Environment token generation answers 200, not 201 (docs/rules.md §14.3). */
export const handler = operation(environments.tokensGenerate, async ({ actor, params, body }) => {
  const { token, value } = await generateEnvironmentToken(actor, params.id, body?.data.attributes ?? {});
  return ok(tokenDocument(token, value));
});
