/**
 * POST /users/<id>/actions/reset-password: the reset token (from the mail's link or the
 * webhook event) sets a new password. Single use; success revokes every token of the user.
 */

import type { Requester } from '../../auth/actor.ts';
import { digest, sameDigest } from '../../auth/secrets.ts';
import { NotAuthenticated, refused } from '../../errors.ts';
import type { AccessPattern } from '../../store/data-model.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { getVisibleItem, toRecord } from '../../store/records.ts';
import { canWrite } from '../../store/scope.ts';
import type { UserRecord } from '../users/entity.ts';
import { passwordResettable } from '../users/policy.ts';
import { replacePassword } from './replace.ts';

/** What the reset form (or a client holding the webhook's token) sends. */
export interface PasswordReset {
  /** The reset token, from the mail's link or the `user.password-reset` event. */
  token: string;
  newPassword: string;
}

export async function resetPassword(requester: Requester, id: string, input: PasswordReset): Promise<UserRecord> {
  // Only a user of the request's own environment: a reset is a change, and a SHARED environment never changes a global user.
  const visible = await getVisibleItem(requester.scope, 'users', id);
  const item = visible && canWrite(requester.scope, visible.environmentId) ? visible : undefined;
  const user = item && toRecord('users', item);
  // A wrong token reads like an unknown user: neither tells a guesser anything.
  if (!item || user?.status !== 'ACTIVE' || !user.passwordResetDigest || !sameDigest(digest(input.token), user.passwordResetDigest)) {
    throw new RecordNotFound('users', id);
  }
  if (!user.passwordResetExpiry || Date.parse(user.passwordResetExpiry) <= Date.now()) {
    throw new NotAuthenticated('TOKEN_EXPIRED', 'The password reset token is expired: request a new one');
  }
  const resettable = passwordResettable(requester.account, user);
  if (resettable !== true) throw refused(resettable);
  // The new password and the revocation of every token the user had land together, once: the reset token is used up.
  return replacePassword(requester, item, input.newPassword, { unchanged: { passwordResetDigest: user.passwordResetDigest } });
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 21,
    name: 'Reset token check and single use',
    operation: 'GetItem, then conditional Update (`passwordResetDigest = :seen`)',
    index: 'table',
    key: 'pattern 3',
    usedBy: '`POST /users/<id>/actions/reset-password`',
    tests: ['http/password-reset'],
  },
];
