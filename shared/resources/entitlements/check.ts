/**
 * The entitlements scope of a validation (docs/rules.md §19.1, §25.4): the codes licensed software asks for,
 * each of which the license must hold, through its policy or itself. What answers it, whatever
 * the sets hold, is read with the validation's other items (one BatchGetItem): the markers of
 * the codes asked for (each names its entitlement) and the license's two sets. Codes are matched
 * case-insensitively, as they are unique.
 */
import { type Key, recordKey, uniqueKey } from '../../store/keys.ts';
import type { Item } from '../../store/records.ts';
import { effectiveSetKeys, heldIn, type LicenseRef } from './attachments.ts';
import { ENTITLEMENT_CODE_MARKER, entitlementCodeValue } from './entity.ts';

export type EntitlementsVerdict = { code: 'ENTITLEMENTS_SCOPE_EMPTY' | 'ENTITLEMENTS_MISSING'; detail: string };

/** The keys the entitlements scope reads (none when none was asked for): the markers of the codes asked for and the license's two sets. */
export function entitlementKeys(license: LicenseRef, codes: readonly string[] | undefined): Key[] {
  if (codes === undefined) return [];
  const asked = [...new Set(codes.map(entitlementCodeValue))];
  return [...asked.map((code) => uniqueKey(license.accountId, ENTITLEMENT_CODE_MARKER, code)), ...effectiveSetKeys(license)];
}

/** Undefined when the license holds every code asked for (or none was asked for), judged on `items` read by entitlementKeys; else the failing verdict. */
export function judgeEntitlements(
  license: LicenseRef,
  codes: readonly string[] | undefined,
  items: readonly Item[],
): EntitlementsVerdict | undefined {
  if (codes === undefined) return undefined;
  const asked = [...new Set(codes.map(entitlementCodeValue))];
  if (asked.length === 0) return { code: 'ENTITLEMENTS_SCOPE_EMPTY', detail: 'entitlements scope cannot be empty' };
  const markers = asked.map((code) => uniqueKey(license.accountId, ENTITLEMENT_CODE_MARKER, code));
  const sets = effectiveSetKeys(license);
  const held = new Set(heldIn(items, sets).map((id) => recordKey(license.accountId, 'entitlements', id).PK));
  const holder = new Map(items.map((item) => [item.PK, item.ref]));
  const missing = markers.filter((marker) => {
    const ref = holder.get(marker.PK);
    return typeof ref !== 'string' || !held.has(ref);
  });
  if (missing.length === 0) return undefined;
  return { code: 'ENTITLEMENTS_MISSING', detail: 'is missing one or more required entitlements' };
}
