import { generateEnvironmentToken } from '#shared/domain/environments/service.ts';
import { tokenDocument } from '#shared/domain/tokens/document.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** Environment token generation answers 200, not 201 (docs/rules.md §2). */
export const handler = operation('bearer', async (ctx) => {
  const { token, value } = await generateEnvironmentToken(ctx, ctx.params.id!);
  return ok(tokenDocument(token, value));
});
