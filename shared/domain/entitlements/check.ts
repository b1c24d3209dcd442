/**
 * The entitlements scope of a validation (docs/rules.md §11, §13): the codes licensed software asks for,
 * each of which the license must hold, through its policy or itself. One BatchGetItem answers it
 * whatever the sets hold: the markers of the codes asked for (each names its entitlement) and
 * the license's two sets. Codes are matched case-insensitively, as they are unique.
 */
import { recordKey, uniqueKey } from '../../store/keys.ts';
import { getItems } from '../../store/records.ts';
import { effectiveSetKeys, heldIn, type LicenseRef } from './attachments.ts';
import { ENTITLEMENT_CODE_MARKER, entitlementCodeValue } from './entitlement.ts';

export type EntitlementsVerdict = { code: 'ENTITLEMENTS_SCOPE_EMPTY' | 'ENTITLEMENTS_MISSING'; detail: string };

/** Undefined when the license holds every code asked for (or none was asked for); else the failing verdict. */
export async function checkEntitlements(
  license: LicenseRef,
  codes: readonly string[] | undefined,
): Promise<EntitlementsVerdict | undefined> {
  if (codes === undefined) return undefined;
  const asked = [...new Set(codes.map(entitlementCodeValue))];
  if (asked.length === 0) return { code: 'ENTITLEMENTS_SCOPE_EMPTY', detail: 'entitlements scope cannot be empty' };
  const markers = asked.map((code) => uniqueKey(license.accountId, ENTITLEMENT_CODE_MARKER, code));
  const sets = effectiveSetKeys(license);
  const items = await getItems([...markers, ...sets]);
  const held = new Set(heldIn(items, sets).map((id) => recordKey(license.accountId, 'entitlements', id).PK));
  const holder = new Map(items.map((item) => [item.PK, item.ref]));
  const missing = markers.filter((marker) => {
    const ref = holder.get(marker.PK);
    return typeof ref !== 'string' || !held.has(ref);
  });
  if (missing.length === 0) return undefined;
  return { code: 'ENTITLEMENTS_MISSING', detail: 'is missing one or more required entitlements' };
}
