/**
 * POST /users/<id>/actions/reset-password: the reset token (from the mail's link or the
 * webhook event) sets a new password. Single use; success revokes every token of the user.
 */
import * as z from 'zod/mini';
import { digest, hashPassword, sameDigest } from '../../auth/secrets.ts';
import { metaDocument, parseBody } from '../../http/body.ts';
import { emitEvent } from '../../events/emit.ts';
import { forbidden, unauthorized } from '../../http/errors.ts';
import type { RequestContext } from '../../http/pipeline.ts';
import { childItems, deleteWithChildren } from '../../store/cascade.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { getVisibleItem, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { now } from '../rules.ts';
import { removeLookup } from '../tokens/service.ts';
import { BEARER_SLOT } from '../tokens/token.ts';
import { userDocument } from '../users/document.ts';
import { passwordRules } from '../users/service.ts';
import { isManaged, type UserRecord } from '../users/user.ts';

const fulfilBody = metaDocument({ passwordResetToken: z.string(), newPassword: z.string() });

export async function resetPassword(ctx: RequestContext, id: string): Promise<UserRecord> {
  const { meta } = parseBody(ctx.body, fulfilBody);
  const item = await getVisibleItem(ctx.scope, 'users', id);
  const user = item && toRecord<UserRecord & { passwordResetDigest?: string; passwordResetExpiry?: string }>(item);
  // A wrong token reads like an unknown user: neither tells a guesser anything.
  if (!item || user?.status !== 'ACTIVE' || !user.passwordResetDigest || !sameDigest(digest(meta.passwordResetToken), user.passwordResetDigest)) {
    throw new RecordNotFound('users', id);
  }
  if (!user.passwordResetExpiry || Date.parse(user.passwordResetExpiry) <= Date.now()) {
    throw unauthorized('TOKEN_EXPIRED', 'The password reset token is expired: request a new one');
  }
  if (ctx.account.protected && isManaged(user) && user.role === 'user') {
    throw forbidden(
      'In a protected account a managed user cannot set an initial password: an admin can set a temporary one, or make the account unprotected',
    );
  }
  passwordRules(meta.newPassword, '/meta/newPassword');

  const tx = new Transaction();
  const next = tx.update(
    item,
    { passwordHash: await hashPassword(meta.newPassword), passwordResetDigest: null, passwordResetExpiry: null, updated: now() },
    { missing: new RecordNotFound('users', id), unchanged: { passwordResetDigest: user.passwordResetDigest } },
  );
  const updated = toRecord<UserRecord>(next);
  await emitEvent(tx, updated, 'user.updated', userDocument(updated));
  await tx.commit();
  const tokens = await childItems(user.accountId, user.environmentId, 'tokens', { type: 'users', id: user.id }, BEARER_SLOT);
  await deleteWithChildren(tokens, () => {}, removeLookup);
  return updated;
}
