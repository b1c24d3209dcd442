import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { tokenDocument } from '#shared/resources/tokens/document.ts';
import { users } from '#shared/resources/users/operations.ts';
import { listUserTokens } from '#shared/resources/users/service.ts';

/** GET /users/<id>/tokens: the tokens of a user the bearer may see. */
export const handler = operation(users.tokens, async (call) =>
  listReply(call, await listUserTokens(call.actor, call.params.id, call.page), tokenDocument),
);
