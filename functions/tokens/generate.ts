import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { tokenDocument } from '#shared/resources/tokens/document.ts';
import { tokens } from '#shared/resources/tokens/operations.ts';
import { generateUserToken } from '#shared/resources/tokens/service.ts';

/** POST /tokens with HTTP Basic e-mail and password: log in. */
export const handler = operation(tokens.generate, async ({ actor, body }) => {
  const { token, value } = await generateUserToken(actor, body?.data.attributes ?? {});
  return created(tokenDocument(token, value));
});
