/**
 * A license's users (docs/rules.md §18.11), as Keygen 1.5 attaches them: besides its owner, a
 * license may have users attached, each of whom reaches the license and what hangs on it as its
 * owner does. An attachment is a record of its own: in its license's collection (the license's
 * users, counted: what `maxUsers` bounds) and in its user's (the licenses the user is attached
 * to, sorted as the licenses themselves so that a user's list merges them with those it owns).
 * Its id is decided by the license and the user, so a pair is attached once (its create requires
 * the key to be free), and whether a user is attached to a license is one read by key.
 */
import { digest } from '../../auth/secrets.ts';
import type { AccessPattern } from '../../store/data-model.ts';
import { type Key, recordKey } from '../../store/keys.ts';
import type { StoredRecord } from '../../store/records.ts';

export interface LicenseUserRecord extends StoredRecord {
  type: 'license-users';
  licenseId: string;
  /** The user attached (named `ownerId` as every record's user is, so its collection and its lists filter on it). */
  ownerId: string;
  /** The license's, so that a user's lists filter its attachments as they filter its licenses. */
  policyId: string;
  productId: string;
}

/**
 * The collections an attachment joins, by the name of the parent it names: the order is the
 * store's (the first is GSI2, the next GSI3...), never to be changed (docs/data-model.md). Its
 * product's, so that a product's removal, which takes everything under it by its collections,
 * takes the attachments of its licenses too.
 */
export const LICENSE_USER_PARENTS = { license: 'licenses', owner: 'users', product: 'products' } as const;

/** The id of the attachment of `userId` to `licenseId`: a UUID (version 8, RFC 9562) of their SHA-256. */
export function licenseUserId(licenseId: string, userId: string): string {
  const hex = digest(`license-user:${licenseId}:${userId}`);
  const variant = (8 | (Number.parseInt(hex.charAt(16), 16) & 3)).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The key of the attachment of `userId` to `licenseId`: it exists while the user is attached. */
export const licenseUserKey = (accountId: string, licenseId: string, userId: string): Key =>
  recordKey(accountId, 'license-users', licenseUserId(licenseId, userId));

/** At most this many users are attached or detached by one request (Keygen's bound). */
export const MAX_NAMED = 100;

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 66,
    name: 'Attach users to a license, or detach them',
    operation:
      "BatchGetItem of the users named and of their attachments, then TransactWriteItems of up to 25 users: Put of each attachment (GSI2: the license's, GSI3: the user's, sorted as the license) if `attribute_not_exists(PK)`, `ADD n` of the license's users counter if `n <= :max` (the license's `maxUsers` less its owner), ConditionCheck of the license's `ownerId` as read and of each user, the event with the last; a later one failing deletes what the earlier ones made. A detach: Delete of each attachment if it exists, its counters, up to 25 a transaction, the event with the last; then the license's machines, components and processes the users detached owned lose their owner (as pattern 65 hands over, Query of the license's collections)",
    index: 'table',
    key: '`PK = A#<acct>#LICENSE_USER#<id>` (the id from the license and the user), `COUNT#A#<acct>#E#<env>#LICENSE#<id>#LICENSE_USER`',
    usedBy: 'licenseUsers.attach, licenseUsers.detach',
    tests: ['http/license-users'],
  },
  {
    n: 67,
    name: 'Whether a user is attached to a license',
    operation: 'GetItem of the attachment (once per request and license)',
    index: 'table',
    key: '`PK = A#<acct>#LICENSE_USER#<id from licenseId and userId>`',
    usedBy: 'the policies of licenses, machines, components and processes: an attached user reaches them; validation of a `user` scope',
    tests: ['http/license-users'],
  },
  {
    n: 68,
    name: "A user's licenses: those it owns and those it is attached to",
    operation:
      'Query (backwards) of both partitions, merged newest first (the attachments sort as their licenses), then BatchGetItem of the licenses',
    index: 'GSI4 (owned), GSI3 (attached)',
    key: '`GSI4PK = A#<acct>#E#<env>#USER#<id>#LICENSE`, `GSI3PK = …#USER#<id>#LICENSE_USER`',
    usedBy: "a user's `GET /licenses`, `GET /users/<id>/licenses`, `?user=`; whether a user holds a license of a product or policy",
    tests: ['http/license-users'],
  },
];
