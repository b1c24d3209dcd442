/**
 * Machines: devices activated on a license. A fingerprint is unique per license, held by a
 * marker keyed by the SHA-256 of license id and fingerprint (fingerprints may be up to 4 KB).
 */
import { digest } from '../../auth/secrets.ts';
import type { Item, StoredRecord } from '../../store/records.ts';
import type { Scope } from '../../store/scope.ts';
import { findByUnique } from '../../store/unique.ts';

export interface MachineRecord extends StoredRecord {
  type: 'machines';
  licenseId: string;
  /** The license's environment (null: global), which may differ from the machine's (seats.ts). */
  licenseEnvironmentId: string | null;
  policyId: string;
  productId: string;
  /** The machine's owner: given at activation, else the license's owner. */
  ownerId: string | null;
  /** The license's owner at activation, who may also reach the machine. */
  licenseOwnerId: string | null;
  fingerprint: string;
  name: string | null;
  hostname: string | null;
  platform: string | null;
  metadata: Record<string, unknown>;
  /** When the machine was last checked out (a machine file issued); absent until then. */
  lastCheckOut?: string | null;
}

export const MACHINE_FINGERPRINT_MARKER = 'MACHINE_FINGERPRINT';

export const machineFingerprintValue = (licenseId: string, fingerprint: string) => digest(`${licenseId}:${fingerprint}`);

/** The machine of a license with this fingerprint, if the scope may read it. */
export const findMachineItem = (scope: Scope, licenseId: string, fingerprint: string): Promise<Item | undefined> =>
  findByUnique(scope, MACHINE_FINGERPRINT_MARKER, machineFingerprintValue(licenseId, fingerprint));
