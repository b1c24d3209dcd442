/**
 * Licenses: a policy's grant to a licensee. A key is unique per account; its marker is keyed by
 * the key's SHA-256 (keys may be longer than a DynamoDB key may be), and `Authorization:
 * License <key>` finds the license through that marker.
 */
import { digest } from '../../auth/secrets.ts';
import { uniqueKey } from '../../store/keys.ts';
import { getItem, type Item, type StoredRecord } from '../../store/records.ts';

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
}

export const LICENSE_KEY_MARKER = 'LICENSE_KEY';

export const licenseKeyValue = (key: string) => digest(key);

/** The stored license holding `key` in the account, whatever its environment (callers check visibility). */
export async function findLicenseItemByKey(accountId: string, key: string): Promise<Item | undefined> {
  if (key.length === 0 || key.length > 4096) return undefined;
  const marker = await getItem(uniqueKey(accountId, LICENSE_KEY_MARKER, licenseKeyValue(key)));
  return marker && getItem({ PK: marker.ref as string, SK: marker.SK });
}

export function licenseStatus(license: Pick<LicenseRecord, 'suspended' | 'expiry'>, at = Date.now()): LicenseStatus {
  if (license.suspended) return 'SUSPENDED';
  if (license.expiry && Date.parse(license.expiry) <= at) return 'EXPIRED';
  return 'ACTIVE';
}
