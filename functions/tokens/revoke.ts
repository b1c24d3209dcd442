import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { tokens } from '#shared/resources/tokens/operations.ts';
import { revokeToken } from '#shared/resources/tokens/service.ts';

export const handler = operation(tokens.revoke, async ({ actor, params }) => {
  await revokeToken(actor, params.id);
  return noContent();
});
