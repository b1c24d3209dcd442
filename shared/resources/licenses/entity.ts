/**
 * Licenses: a policy's grant to a licensee. A key is unique per account; its marker is keyed by
 * the key's SHA-256 (keys may be longer than a DynamoDB key may be), and `Authorization:
 * License <key>` finds the license through that marker. A license keeps its policy's key scheme
 * as it was at its creation, so nothing that reads a license by its key reads the policy for it.
 */
import { digest } from '../../auth/secrets.ts';
import { idOfRecordKey } from '../../store/keys.ts';
import type { Item, StoredItem, StoredRecord } from '../../store/records.ts';
import type { Scope } from '../../store/scope.ts';
import { findByUnique } from '../../store/unique.ts';
import type { KeyScheme } from '../policies/entity.ts';
import { SIGNED_KEY_MAX_LENGTH } from './signed-key.ts';

export type LicenseStatus = 'ACTIVE' | 'EXPIRING' | 'EXPIRED' | 'SUSPENDED';

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
}

/**
 * The collections a license joins, by the name of the parent it names: the order is the store's
 * (the first is GSI2, the next GSI3...), never to be changed (docs/data-model.md).
 */
export const LICENSE_PARENTS = { policy: 'policies', product: 'products', owner: 'users' } as const;

export const LICENSE_KEY_MARKER = 'LICENSE_KEY';

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

/** How close an expiry makes a license EXPIRING (Keygen's 3 days). */
const EXPIRING_WITHIN_MS = 3 * 24 * 3600 * 1000;

/** Whether a license's expiry (as stored: an ISO 8601 time, or null or absent) has passed at `at` (epoch ms). */
export const isExpired = (expiry: unknown, at = Date.now()) => typeof expiry === 'string' && Date.parse(expiry) <= at;

/** The status at a glance (not a verdict: validation gives that): SUSPENDED, EXPIRED, EXPIRING, ACTIVE. */
export function licenseStatus(license: Pick<LicenseRecord, 'suspended' | 'expiry'>, at = Date.now()): LicenseStatus {
  if (license.suspended) return 'SUSPENDED';
  if (isExpired(license.expiry, at)) return 'EXPIRED';
  if (license.expiry != null && Date.parse(license.expiry) <= at + EXPIRING_WITHIN_MS) return 'EXPIRING';
  return 'ACTIVE';
}
