/**
 * Entitlements, and their attachments to policies and licenses.
 *
 *   administrators  every entitlement the scope shows; create, update, delete; attach and detach
 *   product         reads every entitlement the scope shows; attaches to and detaches from its
 *                   own policies and licenses
 *   license         the entitlements it holds (its policy's and its own)
 *   user            the entitlements of the licenses they own
 *
 * An attachment is judged on its holder (a policy or a license), which the bearer must reach as
 * the holder's own policy says: who cannot see the holder finds no attachments either (404).
 */

import type { Permission } from '../../auth/permissions.ts';
import {
  administratorsOnly,
  definePolicy,
  isAdministrator,
  type Policy,
  type Principal,
  type Verdict,
} from '../../auth/policies/policy.ts';
import { licensePolicy } from '../licenses/policy.ts';
import { policyPolicy } from '../policies/policy.ts';

const isLicensee = (actor: Principal) => actor.bearer.kind === 'license' || actor.bearer.kind === 'user';

export const entitlementPolicy = definePolicy({
  permissions: {
    create: 'entitlement.create',
    list: 'entitlement.read',
    read: 'entitlement.read',
    update: 'entitlement.update',
    delete: 'entitlement.delete',
  },
  // Every kind of bearer reads entitlements; a licensee only those it holds (`reaches`).
  grants: { licensee: ['entitlement.read'], product: ['entitlement.read'] },
  writes: new Set(['update', 'delete']),
  reaches: (actor, record) => (isLicensee(actor) ? actor.holdsEntitlement(record.id) : true),
  may: (actor, action): Verdict =>
    ['create', 'update', 'delete'].includes(action) ? administratorsOnly(actor, `${action} entitlements`) : true,
  // Licensees list what they hold (entitlements/service.ts reads their sets for it).
  restrict: (actor): Record<string, string> => (isLicensee(actor) ? { heldBy: actor.bearer.id } : {}),
});

/** The attachments of one kind of holder, judged on the holder with the holder's reach. */
function attachments<A extends string, P extends Permission, const S extends 'policy' | 'license'>(
  holder: Policy<A, P>,
  singular: S,
): Policy<'list' | 'attach' | 'detach', 'entitlement.read' | `${S}.entitlements.attach` | `${S}.entitlements.detach`> {
  const attach = `${singular}.entitlements.attach` as const;
  const detach = `${singular}.entitlements.detach` as const;
  return {
    permissions: { list: 'entitlement.read', attach, detach },
    // A product bearer attaches to and detaches from its own policies and licenses.
    grants: { product: [attach, detach] },
    writes: new Set(['attach', 'detach']),
    reaches: holder.reaches,
    may: (actor, action): Verdict =>
      action === 'list' ||
      isAdministrator(actor.bearer) ||
      actor.bearer.kind === 'product' ||
      `Only administrators and the product may ${action} entitlements`,
  };
}

export const policyEntitlementPolicy = attachments(policyPolicy, 'policy');
export const licenseEntitlementPolicy = attachments(licensePolicy, 'license');
