/**
 * What a licensee holds, a fact of the licensing graph that the policies judge with (the
 * principal shared/auth/authorize.ts gives them) and that a licensee's list of entitlements
 * shows: a license bearer its effective set; a user the effective sets of the licenses they own or
 * are attached to (read from their own collections: never what the account holds). Others
 * hold nothing of their own: they reach entitlements as administrators or as a product.
 */
import type { Bearer } from '../auth/bearer.ts';
import { effectiveEntitlementIds, effectiveSetKeys, heldIn } from '../resources/entitlements/attachments.ts';
import { childItems } from '../store/cascade.ts';
import { getItems } from '../store/records.ts';
import type { Scope } from '../store/scope.ts';
import { parentIn } from './slots.ts';

/** The ids of the entitlements the bearer holds, each once. */
export async function heldEntitlementIds(scope: Scope, bearer: Bearer): Promise<string[]> {
  if (bearer.kind === 'license') {
    if (bearer.policyId === undefined) throw new Error(`License bearer ${bearer.id} carries no policy`);
    return effectiveEntitlementIds({ accountId: scope.accountId, id: bearer.id, policyId: bearer.policyId });
  }
  if (bearer.kind !== 'user') return [];
  // The licenses it owns, and its attachments to licenses (each names its license and policy: docs/rules.md §18.11).
  const holdings = (
    await Promise.all(
      scope.readable.flatMap((environmentId) => [
        childItems(scope.accountId, environmentId, 'licenses', parentIn('licenses', 'owner', bearer.id)),
        childItems(scope.accountId, environmentId, 'license-users', parentIn('license-users', 'owner', bearer.id)),
      ]),
    )
  )
    .flat()
    .map((item) => ({ id: (item.type === 'license-users' ? item.licenseId : item.id) as string, policyId: item.policyId as string }));
  const keys = [
    ...new Map(
      holdings
        .flatMap((license) => effectiveSetKeys({ accountId: scope.accountId, id: license.id, policyId: license.policyId }))
        .map((key) => [key.PK, key]),
    ).values(),
  ];
  return keys.length ? heldIn(await getItems(keys), keys) : [];
}
