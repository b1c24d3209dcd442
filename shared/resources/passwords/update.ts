/**
 * POST /users/<id>/actions/update-password (docs/rules.md §27.4), as Keygen updates a password: the
 * user's own, given the one it replaces. The user's other tokens are revoked with the change; the
 * one the request came with stays, so the client that changed the password stays signed in.
 */
import type { Actor } from '../../auth/actor.ts';
import { limitLogins } from '../../auth/authenticate.ts';
import { authorize } from '../../auth/authorize.ts';
import { verifyPassword } from '../../auth/secrets.ts';
import { conflict, NotAuthenticated } from '../../errors.ts';
import { toRecord } from '../../store/records.ts';
import type { UserRecord } from '../users/entity.ts';
import { replacePassword } from './replace.ts';

export interface PasswordUpdate {
  oldPassword: string;
  newPassword: string;
}

export async function updatePassword(actor: Actor, id: string, input: PasswordUpdate): Promise<UserRecord> {
  const item = await authorize(actor, 'users', id, 'password.update');
  const user = toRecord('users', item);
  // A guess of the old password counts as a log-in does: a stolen token cannot try passwords faster.
  await limitLogins(user.accountId, user.email);
  // A managed user (no password yet) has none to give: Keygen's answer alike, 401 at the old password.
  if (!(await verifyPassword(input.oldPassword, user.passwordHash))) {
    throw new NotAuthenticated('CREDENTIALS_INVALID', 'is not valid', undefined, { pointer: '/meta/oldPassword' });
  }
  // Only over the password checked: of two concurrent updates, the second finds its old password gone.
  return replacePassword(actor, item, input.newPassword, {
    unchanged: { passwordHash: user.passwordHash },
    conflict: conflict('The password changed while this request was made'),
    kept: actor.bearer.tokenId,
  });
}
