import { users } from '#shared/api/users.ts';
import { resetPassword } from '#shared/domain/passwords/fulfil.ts';
import { userDocument } from '#shared/domain/users/document.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** The reset token in the body is the credential: no Authorization header. */
export const handler = operation(users.resetPassword, async ({ actor, params, body: { meta } }) =>
  ok(userDocument(await resetPassword(actor, params.id, { token: meta.passwordResetToken, newPassword: meta.newPassword }))),
);
