import { users } from '#shared/api/users.ts';
import { tokenDocument } from '#shared/domain/tokens/document.ts';
import { listUserTokens } from '#shared/domain/users/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /users/<id>/tokens: the tokens of a user the bearer may see. */
export const handler = operation(users.tokens, async (call) =>
  listReply(call, await listUserTokens(call.actor, call.params.id, call.page), tokenDocument),
);
