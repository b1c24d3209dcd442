/** Licenses (shared/auth/policies/graph.ts). */

import { heldBy } from '../../auth/held.ts';
import { CHANGES, CHECK_OUT, crud, reachedBy } from '../../auth/policies/graph.ts';
import { definePolicy, holdsAll, isAdministrator, type Principal, tokenGrant, type Verdict } from '../../auth/policies/policy.ts';
import type { StoredItem } from '../../store/records.ts';
import { canWrite } from '../../store/scope.ts';

/** Reach without a read: a user reaches the licenses it owns (those it is attached to need one: `reachesLicense`). */
const ownReach = reachedBy({
  product: (bearer, record) => record.productId === bearer.id,
  license: (bearer, record) => record.id === bearer.id,
  user: (bearer, record) => record.ownerId === bearer.id,
}) as (actor: Principal, record: StoredItem) => boolean; // every rule above answers at once

/** A user reaches the licenses it owns and those it is attached to (docs/rules.md §18.11). */
const reachesLicense = (actor: Principal, record: StoredItem): boolean | Promise<boolean> =>
  ownReach(actor, record) || (actor.bearer.kind === 'user' && actor.attachedTo(record.id));

/**
 * The lifecycle actions (docs/rules.md §18.5): suspending and reinstating are the administrators'
 * and the product's; renewing and revoking also the owning user's, unless the license is
 * protected. A license never acts on its own standing.
 */
const LIFECYCLE = {
  suspend: 'license.suspend',
  reinstate: 'license.reinstate',
  renew: 'license.renew',
  revoke: 'license.revoke',
} as const;
const OWNER_ACTIONS: readonly string[] = ['renew', 'revoke'];

/** Who may take a lifecycle action besides holding its permission. */
function mayChangeStanding(actor: Principal, action: string, record: StoredItem | undefined): Verdict {
  const { kind } = actor.bearer;
  if (isAdministrator(actor.bearer) || kind === 'product') return true;
  if (kind === 'user' && OWNER_ACTIONS.includes(action)) {
    // Its owner's, not a user attached to it (docs/rules.md §18.11).
    if (record?.ownerId !== actor.bearer.id) return `Only administrators, the license's product and its owner may ${action} it`;
    return record?.protected !== true || `The license is protected: only administrators and its product may ${action} it`;
  }
  return `Only administrators and the license's product may ${action} licenses${OWNER_ACTIONS.includes(action) ? ' (and its owner, unless it is protected)' : ''}`;
}

/**
 * What a license reports of its own use, as Keygen allows it: counting a use (docs/rules.md §18.6)
 * and checking in (§18.8) are the license's own and its owner's too, unless it is protected;
 * lowering and resetting the count is the administrators' and the product's.
 */
const USE = {
  'usage.increment': 'license.usage.increment',
  'usage.decrement': 'license.usage.decrement',
  'usage.reset': 'license.usage.reset',
  'check-in': 'license.check-in',
} as const;
const SELF_REPORTED: readonly string[] = ['usage.increment', 'check-in'];

/** Who may report a license's use besides holding the permission. */
function mayReportUse(actor: Principal, action: string, record: StoredItem | undefined): Verdict {
  const { kind } = actor.bearer;
  if (isAdministrator(actor.bearer) || kind === 'product') return true;
  if (!SELF_REPORTED.includes(action)) return "Only administrators and the license's product may lower or reset a license's uses";
  return (
    kind !== 'user' ||
    record?.protected !== true ||
    `The license is protected: only administrators, its product and the license itself may ${action === 'check-in' ? 'check it in' : 'count its uses'}`
  );
}

/**
 * Who may move a license to another policy besides holding the permission (docs/rules.md §18.12):
 * administrators and its product; its owner, unless the license or the target policy (the
 * action's `changes.policy`) is protected.
 */
function mayTransfer(actor: Principal, record: StoredItem | undefined, target: unknown): Verdict {
  const { bearer } = actor;
  if (isAdministrator(bearer) || bearer.kind === 'product') return true;
  if (bearer.kind !== 'user' || record?.ownerId !== bearer.id) {
    return "Only administrators, the license's product and its owner may change its policy";
  }
  if (record.protected === true) return 'The license is protected: only administrators and its product may change its policy';
  return (
    (target as { protected?: boolean } | undefined)?.protected !== true ||
    'The policy is protected: only administrators and its product may move a license to it'
  );
}

export const licensePolicy = definePolicy({
  permissions: {
    // In the order shared/auth/permissions.ts lists them (a credential lacking several is told so).
    ...crud('license'),
    validate: 'license.validate',
    [CHECK_OUT]: 'license.check-out',
    'tokens.generate': 'license.tokens.generate',
    ...LIFECYCLE,
    ...USE,
    // Its owner (owner.ts): administrators' and the product's, as Keygen's.
    'owner.update': 'license.owner.update',
    // Its policy (transfer.ts): also its owner's, unless it is protected.
    'policy.update': 'license.policy.update',
  },
  // A user also renews and revokes the licenses they own (unless protected: `mayChangeStanding`).
  grants: {
    licensee: ['license.read', 'license.validate', 'license.check-out', 'license.usage.increment', 'license.check-in'],
    user: ['license.renew', 'license.revoke', 'license.policy.update'],
    product: '*',
  },
  writes: new Set([
    ...CHANGES,
    'tokens.generate',
    CHECK_OUT,
    ...Object.keys(LIFECYCLE),
    ...Object.keys(USE),
    'owner.update',
    'policy.update',
  ]),
  reaches: reachesLicense,
  may(actor, action, record, context) {
    if (Object.hasOwn(LIFECYCLE, action)) return mayChangeStanding(actor, action, record);
    if (Object.hasOwn(USE, action)) return mayReportUse(actor, action, record);
    if (action === 'policy.update') return mayTransfer(actor, record, context.changes?.policy);
    if (action === CHECK_OUT && actor.bearer.kind === 'user' && record?.protected === true) {
      return 'The license is protected: only administrators, its product and the license itself may check it out';
    }
    return true;
  },
  restrict(actor): Record<string, string> {
    const { bearer } = actor;
    if (bearer.kind === 'product') return { productId: bearer.id };
    if (bearer.kind === 'license') return { id: bearer.id };
    if (bearer.kind === 'user') return { ownerId: bearer.id };
    return {};
  },
  present(actor, record) {
    const { bearer } = actor;
    const environmentId = record.environmentId ?? null;
    const entitled =
      (bearer.kind === 'license' && bearer.id === record.id) ||
      (bearer.kind === 'user' && bearer.id === record.ownerId) ||
      (canWrite(actor.scope, environmentId) && ownReach(actor, record) && bearer.permissions.has('license.update'));
    // The key is a credential: shown only to a credential that already holds all it would give.
    return entitled && holdsAll(bearer, heldBy('license', environmentId)) ? record : { ...record, key: null };
  },
  carries: tokenGrant,
});
