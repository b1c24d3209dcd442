/**
 * Entitlements: named features a vendor grants, attached to policies (for every license under
 * them) and to single licenses, and checked by licensed software in a validation's
 * `meta.scope.entitlements`. A code is unique per account, case-insensitively and across
 * environments, held by a uniqueness marker that points at the record.
 */
import type { StoredRecord } from '../../store/records.ts';

export interface EntitlementRecord extends StoredRecord {
  type: 'entitlements';
  name: string;
  code: string;
  metadata: Record<string, unknown>;
  /** Set while its removal detaches it everywhere: no attach takes it from then on (attachments.ts). */
  removing?: true;
}

export const ENTITLEMENT_CODE_MARKER = 'ENTITLEMENT_CODE';

/** The value a code's marker holds: codes are compared case-insensitively. */
export const entitlementCodeValue = (code: string) => code.toLowerCase();
