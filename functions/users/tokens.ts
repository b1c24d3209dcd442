import { tokenDocument } from '#shared/domain/tokens/document.ts';
import { listBearerTokens } from '#shared/domain/tokens/service.ts';
import { retrieveUser } from '#shared/domain/users/service.ts';
import { forbidden } from '#shared/http/errors.ts';
import { listReply, pageRequest } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /users/<id>/tokens: the tokens of a user the bearer may see. */
export const handler = operation('bearer', async (ctx) => {
  const user = await retrieveUser(ctx, ctx.params.id!);
  if (!ctx.bearer.permissions.has('token.read')) throw forbidden('This token may not read tokens');
  const request = pageRequest(ctx.query);
  return listReply(ctx, request, await listBearerTokens(ctx.scope, { type: 'users', id: user.id }, request), tokenDocument);
});
