/**
 * Licenses: a policy's grant to a licensee. A key is unique per account; its marker is keyed by
 * the key's SHA-256 (keys may be longer than a DynamoDB key may be), and `Authorization:
 * License <key>` finds the license through that marker. A license keeps its policy's key scheme
 * as it was at its creation, so nothing that reads a license by its key reads the policy for it.
 */
import { digest } from '../../auth/secrets.ts';
import type { AccessPattern, MarkerKind } from '../../store/data-model.ts';
import { idOfRecordKey } from '../../store/keys.ts';
import type { Item, StoredItem, StoredRecord } from '../../store/records.ts';
import type { Scope } from '../../store/scope.ts';
import { findByUnique } from '../../store/unique.ts';
import type { KeyScheme } from '../policies/entity.ts';
import { SIGNED_KEY_MAX_LENGTH } from './signed-key.ts';

export type LicenseStatus = 'ACTIVE' | 'INACTIVE' | 'EXPIRING' | 'EXPIRED' | 'SUSPENDED';

export interface LicenseRecord extends StoredRecord {
  type: 'licenses';
  policyId: string;
  productId: string;
  ownerId: string | null;
  key: string;
  /** The policy's scheme when the key was made; absent from licenses made before schemes existed: read as null. */
  scheme?: KeyScheme | null;
  name: string | null;
  protected: boolean;
  suspended: boolean;
  expiry: string | null;
  metadata: Record<string, unknown>;
  /** When the license was last checked out (a license file issued); absent until then. */
  lastCheckOut?: string | null;
  /** Uses counted by the usage actions (docs/rules.md §18.6); absent until the first: 0. */
  uses?: number;
  /** The license's own limit of uses, overriding its policy's; absent: the policy's. */
  maxUses?: number;
  /** The license's own limit of users (docs/rules.md §18.11), overriding its policy's; absent: the policy's. */
  maxUsers?: number;
  /** When the license last checked in (docs/rules.md §18.8): set at creation under a policy that requires check-ins. */
  lastCheckIn?: string | null;
  /** When a validation last judged the license (docs/rules.md §19.5); absent until then. */
  lastValidated?: string;
}

/**
 * The collections a license joins, by the name of the parent it names: the order is the store's
 * (the first is GSI2, the next GSI3...), never to be changed (docs/data-model.md).
 */
export const LICENSE_PARENTS = { policy: 'policies', product: 'products', owner: 'users' } as const;

export const LICENSE_KEY_MARKER = 'LICENSE_KEY';

/** The uniqueness markers its records hold (docs/data-model.md). */
export const MARKER_KINDS: readonly MarkerKind[] = [{ kind: LICENSE_KEY_MARKER, value: "SHA-256 of a license's key" }];

/**
 * A license key's marker as stored: the license's key (`ref`), and its policy and owner, which
 * it carries so that a validation by key reads everything else at once (a marker made before it
 * carried them has no `policyId`).
 */
export interface LicenseKeyMarker {
  licenseId: string;
  carried?: { policyId: string; ownerId: string | null };
}

export function licenseKeyMarkerOf(item: Item | undefined): LicenseKeyMarker | undefined {
  if (typeof item?.ref !== 'string') return undefined;
  const licenseId = idOfRecordKey(item.ref);
  if (typeof item.policyId !== 'string') return { licenseId };
  return { licenseId, carried: { policyId: item.policyId, ownerId: typeof item.ownerId === 'string' ? item.ownerId : null } };
}

export const licenseKeyValue = (key: string) => digest(key);

/** Random keys and given ones: at most this many characters (code points). */
export const KEY_MAX = 4096;

/**
 * The longest key, in UTF-16 units, any license may hold: a signed key of the largest dataset,
 * or a given key of KEY_MAX characters outside the Basic Multilingual Plane (two units each).
 */
const LONGEST_KEY = Math.max(SIGNED_KEY_MAX_LENGTH, 2 * KEY_MAX);

/** Whether some license may hold `key` (a longer or empty one is none's: no need to look). */
export const isPossibleKey = (key: string) => key.length > 0 && key.length <= LONGEST_KEY;

/** The license holding `key`, if the scope may read it. */
export async function findLicenseItemByKey(scope: Scope, key: string): Promise<StoredItem<LicenseRecord> | undefined> {
  if (!isPossibleKey(key)) return undefined;
  return findByUnique(scope, 'licenses', LICENSE_KEY_MARKER, licenseKeyValue(key));
}

/** A license's limit of uses: its own when it has one, else its policy's (null: unlimited). */
export function maxUsesOf(license: Pick<LicenseRecord, 'maxUses'>, policy: object | undefined): number | null {
  return license.maxUses ?? (policy as { maxUses?: number | null } | undefined)?.maxUses ?? null;
}

/** The users a license may have, its owner included (docs/rules.md §18.11): its own limit, else its policy's; null: unlimited. */
export function maxUsersOf(license: Pick<LicenseRecord, 'maxUsers'>, policy: object | undefined): number | null {
  return license.maxUsers ?? (policy as { maxUsers?: number | null } | undefined)?.maxUsers ?? null;
}

/** How close an expiry makes a license EXPIRING (Keygen's 3 days). */
const EXPIRING_WITHIN_MS = 3 * 24 * 3600 * 1000;

/** Whether a license's expiry (as stored: an ISO 8601 time, or null or absent) has passed at `at` (epoch ms). */
export const isExpired = (expiry: unknown, at = Date.now()) => typeof expiry === 'string' && Date.parse(expiry) <= at;

/** How long a license goes unused before it is INACTIVE (Keygen's 90 days). */
const INACTIVE_AFTER_MS = 90 * 24 * 3600 * 1000;

/**
 * Whether a license was made, validated, checked out or checked in within the last 90 days at
 * `at`, as Keygen judges a license active.
 */
function usedLately(license: Pick<LicenseRecord, 'created' | 'lastValidated' | 'lastCheckOut' | 'lastCheckIn'>, at: number): boolean {
  const since = at - INACTIVE_AFTER_MS;
  return [license.created, license.lastValidated, license.lastCheckOut, license.lastCheckIn].some(
    (time) => typeof time === 'string' && Date.parse(time) >= since,
  );
}

/** The status at a glance (not a verdict: validation gives that): SUSPENDED, EXPIRED, EXPIRING, INACTIVE, ACTIVE. */
export function licenseStatus(
  license: Pick<LicenseRecord, 'suspended' | 'expiry' | 'created' | 'lastValidated' | 'lastCheckOut' | 'lastCheckIn'>,
  at = Date.now(),
): LicenseStatus {
  if (license.suspended) return 'SUSPENDED';
  if (isExpired(license.expiry, at)) return 'EXPIRED';
  if (license.expiry != null && Date.parse(license.expiry) <= at + EXPIRING_WITHIN_MS) return 'EXPIRING';
  return usedLately(license, at) ? 'ACTIVE' : 'INACTIVE';
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 23,
    name: 'License by key (`Authorization: License`; validate-key: 54)',
    operation: "GetItem ×2 (`findByUnique`: only a license the request's environment reads, which is exactly one it admits as a bearer)",
    index: 'table',
    key: '`PK = A#<acct>#UNIQUE#LICENSE_KEY#<sha256(key)>`, then its `ref`',
    usedBy: '`authenticateLicenseKey`, `validateKey`, `/licenses/<key>` (rules §6.2, §11.2, §19.1)',
    tests: ['store/data-model'],
  },
  {
    n: 40,
    name: "A license's standing (`License <key>`, license tokens, validations)",
    operation:
      "BatchGetItem: a license token's license, policy and owner (its lookup names all three); after pattern 23, a key's policy and its owner (if any), together; a validation's policy and owner",
    index: 'table',
    key: '`PK = A#<acct>#LICENSE#<id>`, `…#POLICY#<id>`, `…#USER#<id>`',
    usedBy: 'authentication (`requireStanding`), both validations',
    tests: ['http/license-lifecycle'],
  },
  {
    n: 41,
    name: "Start a license's expiry once (FROM_FIRST_VALIDATION, FROM_FIRST_ACTIVATION)",
    operation:
      "TransactWriteItems (the machine's own for an activation): Update `SET expiry` if `attribute_exists(PK) AND (attribute_not_exists(expiry) OR attribute_type(expiry, NULL))`; a validation that loses reads the winner's (GetItem); none from a SHARED environment on a global license (rules.md §18.4)",
    index: 'table',
    key: '`PK = A#<acct>#LICENSE#<id>`',
    usedBy: 'both validations, machines.create',
    tests: ['http/license-lifecycle'],
  },
  {
    n: 42,
    name: "Change a license's standing from the state read",
    operation:
      'TransactWriteItems with its event: Update `SET suspended` if `suspended = :read` (a failure read again: 422 or 409), `SET expiry` if `expiry = :read` or unset (renew)',
    index: 'table',
    key: '`PK = A#<acct>#LICENSE#<id>`',
    usedBy: 'licenses.suspend, .reinstate, .renew',
    tests: ['http/license-lifecycle'],
  },
  {
    n: 54,
    name: 'Validate in two reads (noting the time once a minute, telling a listening endpoint)',
    operation:
      "validate-key: the key's marker in the pipeline's first BatchGetItem (with the account and the subscriptions); then one BatchGetItem of the license, its policy and its owner (the marker carries `policyId` and `ownerId`), the machine a `machine` scope names, each fingerprint's machine marker (carrying `id`, `environmentId`, `licenseId`, `created`, `lastHeartbeat`, `componentsCounted`), the device counts of the components given (each component's presence on the machine, `n`, and the machine's component total, keyed by the machine's fingerprint on its license: counted by every component create and delete like pattern 43's counts), and pattern 47's keys (a container that validated the key with the same scope before reads these ahead with the marker, in the first BatchGetItem: one request; the marker read there still names the license, and what it names is read if the keys read ahead were another's: `readsBefore`); then, when the license's `lastValidated` is over a minute old, UpdateItem `SET lastValidated` if `attribute_exists(PK)` (not of a global license validated from a SHARED environment) and, beside it, only when a webhook endpoint listens, TransactWriteItems of the event (the address's limit costs no request: its container counts it, pattern 20). validate by id: the license comes with the bearer (pattern 36), the rest as above. The license's machine, core and process counts: one BatchGetItem more, only when a strict policy or a scope that found no machine asks. A marker made before it carried these costs a read of its license (or machine, and its components: a Query per readable partition); a license's first FROM_FIRST_VALIDATION validation writes its expiry first (41); PER_MACHINE processes of a machine matched by fingerprint, one GetItem",
    index: 'table',
    key: '`PK = A#<acct>#UNIQUE#LICENSE_KEY#<sha256(key)>`; `A#<acct>#UNIQUE#MACHINE_FINGERPRINT#<sha256(license:fp)>`; `A#<acct>#FINGERPRINT_COUNT#COMPONENT#<sha256(device:license:sha256(machine fp):fp)>` and `…#<sha256(device-total:license:sha256(machine fp))>`; the counts of 25, 48, 51',
    usedBy: 'both validations',
    tests: [
      'unit/request-keys',
      'http/validation',
      'http/floating',
      'http/license-validation-order',
      'in-process/validate-key-reads',
      'bench/round-trips',
    ],
  },
];
