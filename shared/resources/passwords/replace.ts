/**
 * A user's password replaced, the one way a reset (fulfil.ts) and an update (update.ts) both take:
 * the new password checked and hashed, and written together with the revocation of the user's
 * tokens (but `kept`, the request's own for an update) and the end of any pending reset, announced
 * as `user.updated`.
 */
import type { Requester } from '../../auth/actor.ts';
import { hashPassword } from '../../auth/secrets.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { type StoredItem, toRecord } from '../../store/records.ts';
import { now } from '../rules.ts';
import { revokeTokensOf } from '../tokens/service.ts';
import { userDocument } from '../users/document.ts';
import type { UserRecord } from '../users/entity.ts';
import { passwordRules } from '../users/service.ts';

export interface Replacement {
  /** What the change requires still as read (the reset digest a reset used, the hash an update checked). */
  unchanged: Record<string, unknown>;
  /** Raised when `unchanged` no longer holds; else the user is not found. */
  conflict?: Error;
  /** A token of the user's that stays. */
  kept?: string;
}

export async function replacePassword(
  requester: Requester,
  item: StoredItem<UserRecord>,
  newPassword: string,
  { unchanged, conflict, kept }: Replacement,
): Promise<UserRecord> {
  passwordRules(newPassword, '/meta/newPassword');
  const passwordHash = await hashPassword(newPassword);
  let updated = toRecord('users', item);
  await revokeTokensOf(
    item,
    async (tx) => {
      const changes = { passwordHash, passwordResetDigest: null, passwordResetExpiry: null, updated: now() };
      updated = toRecord('users', tx.update(item, changes, { missing: new RecordNotFound('users', item.id), unchanged, conflict }));
      await emitEvent(tx, originOf(updated, requester.scope), 'user.updated', userDocument(updated));
    },
    false,
    kept,
  );
  return updated;
}
