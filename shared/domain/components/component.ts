/**
 * Components: hardware (and other) fingerprints of a machine. A fingerprint is unique within
 * the scope the policy's componentUniquenessStrategy names at the moment the component is
 * created; the marker that holds it is keyed by a SHA-256 of that scope and the fingerprint,
 * and is recorded on the component, so removing the component releases exactly it.
 */
import { digest } from '../../auth/secrets.ts';
import type { StoredRecord } from '../../store/records.ts';
import type { UniquenessStrategy } from '../policies/policy.ts';

export interface ComponentRecord extends StoredRecord {
  type: 'components';
  machineId: string;
  licenseId: string;
  policyId: string;
  productId: string;
  ownerId: string | null;
  licenseOwnerId: string | null;
  fingerprint: string;
  name: string;
  metadata: Record<string, unknown>;
}

export const COMPONENT_FINGERPRINT_MARKER = 'COMPONENT_FINGERPRINT';

/** What each strategy makes a fingerprint unique within. */
export const UNIQUENESS_SCOPES: Record<UniquenessStrategy, { label: string; of: (c: ComponentRecord) => string }> = {
  UNIQUE_PER_MACHINE: { label: 'machine', of: (c) => c.machineId },
  UNIQUE_PER_LICENSE: { label: 'license', of: (c) => c.licenseId },
  UNIQUE_PER_POLICY: { label: 'policy', of: (c) => c.policyId },
  UNIQUE_PER_PRODUCT: { label: 'product', of: (c) => c.productId },
  UNIQUE_PER_ACCOUNT: { label: 'account', of: (c) => c.accountId },
};

export function componentFingerprintValue(strategy: UniquenessStrategy, component: ComponentRecord): string {
  const scope = UNIQUENESS_SCOPES[strategy];
  return digest(`${scope.label}:${scope.of(component)}:${component.fingerprint}`);
}
