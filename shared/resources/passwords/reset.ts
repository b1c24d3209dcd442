/**
 * The reset worker's part of a password-reset request: find the user by address within the
 * request's environment, give them a new reset token (replacing any earlier one; only its
 * digest is kept, valid 24 hours) and hand the token over — by e-mail, or, when the request
 * said `deliver: false`, in a `user.password-reset` webhook event (which delivers it and
 * stores it sealed, showing "[FILTERED]"). An address that belongs to no user (or to a banned
 * one) ends here with nothing done.
 */
import { digest, randomSecret } from '../../auth/secrets.ts';
import { emitEvent } from '../../events/emit.ts';
import { secret } from '../../events/sealed-meta.ts';
import { logger } from '../../logger.ts';
import { sendResetMail } from '../../mail/reset-mail.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { type StoredItem, toRecord } from '../../store/records.ts';
import { canWrite, environmentScope, globalScope, type Scope } from '../../store/scope.ts';
import { Transaction } from '../../store/transaction.ts';
import { findByUnique } from '../../store/unique.ts';
import { findAccount } from '../accounts/entity.ts';
import { findEnvironment } from '../environments/entity.ts';
import { now } from '../rules.ts';
import { userDocument } from '../users/document.ts';
import { EMAIL_MARKER, type UserRecord } from '../users/entity.ts';
import type { ResetMessage } from './request.ts';

export const RESET_TOKEN_LIFETIME_MS = 24 * 3600 * 1000;

async function scopeOf(message: ResetMessage): Promise<Scope | undefined> {
  if (!message.environmentId) return globalScope(message.accountId);
  const environment = await findEnvironment(message.accountId, message.environmentId);
  return environment && environmentScope(message.accountId, environment);
}

/**
 * The user the address names in the request's own environment. A reset changes the user, and a
 * request changes only records of its own environment: from a SHARED environment a global
 * user's password is never reset.
 */
async function findUser(scope: Scope, email: string): Promise<StoredItem<UserRecord> | undefined> {
  const item = await findByUnique(scope, 'users', EMAIL_MARKER, email);
  return item && canWrite(scope, item.environmentId) ? item : undefined;
}

export async function processResetRequest(message: ResetMessage): Promise<void> {
  const account = await findAccount(message.accountId);
  const scope = account && (await scopeOf(message));
  const item = scope && (await findUser(scope, message.email));
  if (!account || !item || item.status !== 'ACTIVE') {
    logger.info('password reset: no active user for the address', { resetId: message.resetId });
    return;
  }
  const user = toRecord('users', item);
  const token = randomSecret();
  const tx = new Transaction();
  tx.update(
    item,
    {
      passwordResetDigest: digest(token),
      passwordResetExpiry: new Date(Date.now() + RESET_TOKEN_LIFETIME_MS).toISOString(),
      updated: now(),
    },
    { missing: new RecordNotFound('users', user.id) },
  );
  if (!message.deliver) {
    await emitEvent(tx, user, 'user.password-reset', userDocument(user), { passwordResetToken: secret(token) });
    await tx.commit();
    logger.info('password reset handed to webhooks', { resetId: message.resetId, userId: user.id });
    return;
  }
  await tx.commit();
  await sendResetMail({
    to: user.email,
    accountId: account.id,
    accountName: account.name,
    userId: user.id,
    environmentId: user.environmentId,
    token,
  });
  logger.info('password reset mail sent', { resetId: message.resetId, userId: user.id });
}
