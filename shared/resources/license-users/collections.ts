/**
 * A user's licenses as a list reads them (docs/rules.md §18.11): those it owns (its owner
 * collection of licenses) and those it is attached to (its collection of attachments, each
 * standing for its license and sorted as it), merged newest first.
 */
import { parentIn } from '../../licensing/slots.ts';
import { recordKey } from '../../store/keys.ts';
import type { CollectionRef, Pointers } from '../../store/paging.ts';

/** The attachments of user `userId`, each read as its license. */
export const attachedLicenses = (accountId: string, userId: string): Pointers => ({
  type: 'license-users',
  parent: parentIn('license-users', 'owner', userId),
  locate: (entry) => recordKey(accountId, 'licenses', entry.licenseId as string),
});

/** The licenses user `userId` owns or is attached to, meeting `where`. */
export const licensesOfUser = (accountId: string, userId: string, where: Record<string, string> = {}): CollectionRef<'licenses'> => ({
  type: 'licenses',
  parent: parentIn('licenses', 'owner', userId),
  where,
  pointers: attachedLicenses(accountId, userId),
});
