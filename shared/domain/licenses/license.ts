/**
 * Licenses: a policy's grant to a licensee. A key is unique per account; its marker is keyed by
 * the key's SHA-256 (keys may be longer than a DynamoDB key may be), and `Authorization:
 * License <key>` finds the license through that marker.
 */
import { digest } from '../../auth/secrets.ts';
import type { Item, StoredRecord } from '../../store/records.ts';
import type { Scope } from '../../store/scope.ts';
import { findByUnique } from '../../store/unique.ts';

export type LicenseStatus = 'ACTIVE' | 'EXPIRED' | 'SUSPENDED';

export interface LicenseRecord extends StoredRecord {
  type: 'licenses';
  policyId: string;
  productId: string;
  ownerId: string | null;
  key: string;
  name: string | null;
  protected: boolean;
  suspended: boolean;
  expiry: string | null;
  metadata: Record<string, unknown>;
  /** When the license was last checked out (a license file issued); absent until then. */
  lastCheckOut?: string | null;
}

export const LICENSE_KEY_MARKER = 'LICENSE_KEY';

export const licenseKeyValue = (key: string) => digest(key);

/** The license holding `key`, if the scope may read it. */
export async function findLicenseItemByKey(scope: Scope, key: string): Promise<Item | undefined> {
  if (key.length === 0 || key.length > 4096) return undefined;
  return findByUnique(scope, LICENSE_KEY_MARKER, licenseKeyValue(key));
}

export function licenseStatus(license: Pick<LicenseRecord, 'suspended' | 'expiry'>, at = Date.now()): LicenseStatus {
  if (license.suspended) return 'SUSPENDED';
  if (license.expiry && Date.parse(license.expiry) <= at) return 'EXPIRED';
  return 'ACTIVE';
}
