import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { resetPassword } from '#shared/resources/passwords/fulfil.ts';
import { userDocument } from '#shared/resources/users/document.ts';
import { users } from '#shared/resources/users/operations.ts';

/** The reset token in the body is the credential: no Authorization header. */
export const handler = operation(users.resetPassword, async ({ actor, params, body: { meta } }) =>
  ok(userDocument(await resetPassword(actor, params.id, { token: meta.passwordResetToken, newPassword: meta.newPassword }))),
);
