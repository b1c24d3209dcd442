import { environments } from '#shared/api/environments.ts';
import { generateEnvironmentToken } from '#shared/domain/environments/service.ts';
import { tokenDocument } from '#shared/domain/tokens/document.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** Environment token generation answers 200, not 201 (docs/rules.md §2). */
export const handler = operation(environments.tokensGenerate, async ({ actor, params, body }) => {
  const { token, value } = await generateEnvironmentToken(actor, params.id, body?.data.attributes ?? {});
  return ok(tokenDocument(token, value));
});
