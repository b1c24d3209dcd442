/**
 * Being one of a license's users (docs/rules.md §18.11), as what names a user asks it: an attach
 * (service.ts), a machine's owner at its activation and at its change (machines/service.ts,
 * machines/owner.ts).
 */
import type { Actor } from '../../auth/actor.ts';
import { relatable } from '../../auth/authorize.ts';
import { ruleBroken } from '../../errors.ts';
import { getItem, type Item, type StoredItem } from '../../store/records.ts';
import type { Transaction } from '../../store/transaction.ts';
import type { LicenseRecord } from '../licenses/entity.ts';
import { licenseUserKey } from './entity.ts';

/**
 * Whether the bearer may name `user` (which the request's environment shows) among a license's
 * users: as a relationship of its own records (administrators, a product), or, for the license's
 * owner (the only user the policies let this far), any user of its environment, as Keygen lets it.
 */
export const namable = async (actor: Actor, user: StoredItem): Promise<boolean> =>
  actor.bearer.kind === 'user' || (await relatable(actor, 'users', user));

const notALicenseUser = () => ruleBroken('OWNER_INVALID', 'must be a valid license user', '/data/relationships/owner');

/**
 * Requires `userId` to be one of the license's users, Keygen's rule for a machine's owner: its
 * owner (which the caller's transaction holds as read), or a user attached, else 422
 * OWNER_INVALID. Answers what the transaction must still find for it to hold: the attachment, if any.
 */
export async function asLicenseUser(license: StoredItem<LicenseRecord>, userId: string): Promise<(tx: Transaction) => void> {
  if (userId === license.ownerId) return () => {};
  const attachment: Item | undefined = await getItem(licenseUserKey(license.accountId, license.id, userId));
  if (!attachment) throw notALicenseUser();
  // Detached meanwhile, the user is none of them any more.
  return (tx) => tx.requireExists({ PK: attachment.PK as string, SK: attachment.SK as string }, notALicenseUser());
}
