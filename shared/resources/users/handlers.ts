/**
 * Handlers of the users' operations, one per declaration of operations.ts under the same key. Each
 * export is a factory: the operation's function calls it once to build its Lambda handler
 * (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { created, noContent, ok } from '../../http/documents.ts';
import { listReply } from '../../http/pagination.ts';
import { operation } from '../../http/pipeline.ts';
import { resetPassword as fulfilReset } from '../passwords/fulfil.ts';
import { updatePassword as changePassword } from '../passwords/update.ts';
import { tokenDocument } from '../tokens/document.ts';
import { userDocument } from './document.ts';
import { users } from './operations.ts';
import {
  banUser,
  createUser,
  deleteUser,
  generateTokenForUser,
  listUsers,
  listUserTokens,
  retrieveUser,
  unbanUser,
  updateUser,
} from './service.ts';

export const create = () =>
  operation(users.create, async ({ actor, body }) => created(userDocument(await createUser(actor, body.data.attributes))));

export const list = () => operation(users.list, async (call) => listReply(call, await listUsers(call.actor, call.page), userDocument));

export const retrieve = () =>
  operation(users.retrieve, async ({ actor, params }) => ok(userDocument(await retrieveUser(actor, params.id))));

export const update = () =>
  operation(users.update, async ({ actor, params, body }) =>
    ok(userDocument(await updateUser(actor, params.id, body.data.attributes ?? {}))),
  );

export const remove = () =>
  operation(users.remove, async ({ actor, params }) => {
    await deleteUser(actor, params.id);
    return noContent();
  });

export const ban = () => operation(users.ban, async ({ actor, params }) => ok(userDocument(await banUser(actor, params.id))));

export const unban = () => operation(users.unban, async ({ actor, params }) => ok(userDocument(await unbanUser(actor, params.id))));

/** The reset token in the body is the credential: no Authorization header. */
export const resetPassword = () =>
  operation(users.resetPassword, async ({ actor, params, body: { meta } }) =>
    ok(userDocument(await fulfilReset(actor, params.id, { token: meta.passwordResetToken, newPassword: meta.newPassword }))),
  );

/** The user's own password, given the one it replaces. */
export const updatePassword = () =>
  operation(users.updatePassword, async ({ actor, params, body: { meta } }) =>
    ok(userDocument(await changePassword(actor, params.id, meta))),
  );

/** POST /users/<id>/tokens: a token of the user's, made by an administrator; the value is shown only here. */
export const tokensGenerate = () =>
  operation(users.tokensGenerate, async ({ actor, params, body }) => {
    const { token, value } = await generateTokenForUser(actor, params.id, body?.data.attributes ?? {});
    return ok(tokenDocument(token, value));
  });

/** GET /users/<id>/tokens: the tokens of a user the bearer may see. */
export const tokens = () =>
  operation(users.tokens, async (call) => listReply(call, await listUserTokens(call.actor, call.params.id, call.page), tokenDocument));
