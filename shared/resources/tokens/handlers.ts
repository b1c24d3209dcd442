/**
 * Handlers of the tokens' operations, one per declaration of operations.ts under the same key. Each
 * export is a factory: the operation's function calls it once to build its Lambda handler
 * (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { created, noContent, ok } from '../../http/documents.ts';
import { listReply } from '../../http/pagination.ts';
import { operation } from '../../http/pipeline.ts';
import { tokenDocument } from './document.ts';
import { tokens } from './operations.ts';
import { generateUserToken, listTokens, regenerateToken, retrieveToken, revokeToken } from './service.ts';

/** POST /tokens with HTTP Basic e-mail and password: log in. */
export const generate = () =>
  operation(tokens.generate, async ({ actor, body }) => {
    const { token, value } = await generateUserToken(actor, body?.data?.attributes ?? {}, body?.meta?.otp);
    return created(tokenDocument(token, value));
  });

export const list = () => operation(tokens.list, async (call) => listReply(call, await listTokens(call.actor, call.page), tokenDocument));

export const retrieve = () =>
  operation(tokens.retrieve, async ({ actor, params }) => ok(tokenDocument(await retrieveToken(actor, params.id))));

export const regenerate = () =>
  operation(tokens.regenerate, async ({ actor, params }) => {
    const { token, value } = await regenerateToken(actor, params.id);
    return ok(tokenDocument(token, value));
  });

export const revoke = () =>
  operation(tokens.revoke, async ({ actor, params }) => {
    await revokeToken(actor, params.id);
    return noContent();
  });
