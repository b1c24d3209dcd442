import { tokens } from '#shared/api/tokens.ts';
import { tokenDocument } from '#shared/domain/tokens/document.ts';
import { generateUserToken } from '#shared/domain/tokens/service.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** POST /tokens with HTTP Basic e-mail and password: log in. */
export const handler = operation(tokens.generate, async ({ actor, body }) => {
  const { token, value } = await generateUserToken(actor, body?.data.attributes ?? {});
  return created(tokenDocument(token, value));
});
