/**
 * Licenses as answers show them: what a license's policy decides is shown as its policy stands
 * now, so the policies of the licenses shown are read with them (one BatchGetItem for a page).
 */
import type { ResourceObject } from '../../jsonapi.ts';
import type { Item } from '../../store/records.ts';
import { shownWithPolicies } from '../policies/beside.ts';
import { licenseDocument } from './document.ts';
import type { LicenseRecord } from './entity.ts';

/** The documents of `licenses`, each with its policy (`read`: what a list read beside its page). */
export function licenseDocumentsFor(
  licenses: readonly LicenseRecord[],
  read: readonly Item[] = [],
): Promise<(license: LicenseRecord) => ResourceObject> {
  return shownWithPolicies(licenses, read, licenseDocument);
}

/** The document of one license, with its policy read. */
export const shownLicense = async (license: LicenseRecord): Promise<ResourceObject> => (await licenseDocumentsFor([license]))(license);
