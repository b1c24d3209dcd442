import { tokens } from '#shared/api/tokens.ts';
import { revokeToken } from '#shared/domain/tokens/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(tokens.revoke, async ({ actor, params }) => {
  await revokeToken(actor, params.id);
  return noContent();
});
