/**
 * Every resource's policy (the manifest's), and the one judgement that applies them in the order the API
 * answers (docs/rules.md §2.2): a record out of the scope or out of the bearer's reach is not found
 * (404); a record the request's environment only reads is not changed (403); an action the
 * bearer's credential does not permit, or the policy refuses, is forbidden (403), as is one that
 * would hand over more than the credential holds.
 */

import { manifest } from '../../resources/manifest.ts';
import { RecordReadOnly } from '../../store/errors.ts';
import type { RecordType } from '../../store/keys.ts';
import type { StoredItem } from '../../store/records.ts';
import { canRead, canWrite } from '../../store/scope.ts';
// Supplies what bearers hold to the policies that read it (shared/auth/held.ts).
import '../permissions.ts';
import { type ActionContext, type ActionOf, grantable, type Policy, type Principal } from './policy.ts';

type Manifest = typeof manifest;
type PoliciesOf<R> = R extends { policies: infer P } ? P : never;
type Merged<U> = (U extends unknown ? (each: U) => void : never) extends (each: infer I) => void ? I : never;

/** Every policy, by the JSON:API type it judges: those the manifest's resources name. */
export const POLICIES = Object.assign(
  {},
  ...Object.values(manifest).map((resource) => ('policies' in resource ? resource.policies : {})),
) as Merged<PoliciesOf<Manifest[keyof Manifest]>>;

export type PolicyType = keyof typeof POLICIES;

/** The actions of a type's policy: a misspelt action does not compile. */
export type Action<T extends PolicyType> = ActionOf<(typeof POLICIES)[T]>;

export type Judgement = { allowed: true } | { allowed: false; status: 403 | 404; detail: string };

const ALLOWED: Judgement = { allowed: true };

/** Whether `actor` may do `action` to `record` of `type` (or, without a record, to the type: create, list). */
export async function judge<T extends PolicyType>(
  actor: Principal,
  type: T,
  action: Action<T>,
  record?: StoredItem,
  context: ActionContext = {},
): Promise<Judgement> {
  const policy: Policy = POLICIES[type];
  const permission = policy.permissions[action];
  if (!permission) throw new Error(`${type} has no action ${action}`);
  if (record) {
    const environmentId = record.environmentId ?? null;
    const notFound = { allowed: false, status: 404, detail: `The requested ${type} '${record.id}' was not found` } as const;
    if (record.accountId !== actor.scope.accountId) return notFound;
    if (!policy.accountLevel && !canRead(actor.scope, type as RecordType, environmentId)) return notFound;
    if (!(await policy.reaches(actor, record))) return notFound;
    if (!policy.accountLevel && policy.writes.has(action) && !canWrite(actor.scope, environmentId)) {
      return { allowed: false, status: 403, detail: new RecordReadOnly(type, record.id).message };
    }
  }
  const verdict = (await policy.may?.(actor, action, record, context)) ?? true;
  if (verdict !== true) return { allowed: false, status: 403, detail: verdict };
  if (!actor.bearer.permissions.has(permission)) {
    return { allowed: false, status: 403, detail: `This credential lacks the permission ${permission}` };
  }
  for (const carried of policy.carries?.(actor, action, record, context) ?? []) {
    const grant = grantable(actor.bearer, carried);
    if (grant !== true) return { allowed: false, status: 403, detail: grant };
  }
  return ALLOWED;
}
