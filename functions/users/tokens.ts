import { tokenDocument } from '#shared/domain/tokens/document.ts';
import { listUserTokens } from '#shared/domain/users/service.ts';
import { listReply, pageRequest } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /users/<id>/tokens: the tokens of a user the bearer may see. */
export const handler = operation('bearer', async (ctx) => {
  const request = pageRequest(ctx.query);
  return listReply(ctx, request, await listUserTokens(ctx, ctx.params.id!, request), tokenDocument);
});
