/**
 * The shape of a resource's policy (one module per resource type, beside this file) and the
 * vocabulary they share. A policy answers, for one bearer and one record:
 *
 *   reaches   may the bearer see the record at all?           no → 404, as if it did not exist
 *   may       may it do this action (to this record)?         no → 403, with the reason
 *   restrict  which records of the type its lists show
 *   present   the record as this bearer may see it (secrets hidden)
 *
 * The scope (account and environment isolation) is judged before the policy: a policy only
 * ever sees records the request's environment may read. Nothing outside the policies decides
 * who may do what; shared/auth/authorize.ts applies them.
 */

import type { Item, StoredItem } from '../../store/records.ts';
import type { Scope } from '../../store/scope.ts';
import { type Bearer, kindOf } from '../bearer.ts';
import { effectivePermissions } from '../held.ts';
import type { Permission } from '../permissions.ts';

/** Who acts, where, and the facts about them a decision may have to read. */
export interface Principal {
  bearer: Bearer;
  scope: Scope;
  /** Whether the bearer (a user) owns, or is attached to, a license with these attribute values. */
  holdsLicense(where: { productId?: string; policyId?: string }): Promise<boolean>;
  /** Whether the bearer (a user) is attached to the license `licenseId` (docs/rules.md §18.11). */
  attachedTo(licenseId: string): Promise<boolean>;
  /** The license a record of the graph hangs on. */
  licenseOf(record: Item): Promise<Item | undefined>;
  /** Whether the bearer holds this entitlement: a license through its policy or itself, a user through a license they own. */
  holdsEntitlement(entitlementId: string): Promise<boolean>;
}

/** true, or why not. */
export type Verdict = true | string;

/** What an action's decision may depend on besides the record. */
export interface ActionContext {
  /** What a create or a change sets, as the request gives it (a user's role, a token's permissions). */
  changes?: Readonly<Record<string, unknown>>;
  /** The license a new record hangs on (an activation, a component). */
  license?: Item;
}

/**
 * The kinds of bearer besides administrators (who hold every permission) that hold some of a
 * policy's permissions: `licensee` stands for both a license and a user (who owns licenses).
 */
export type Grantee = 'licensee' | 'user' | 'license' | 'product';

export interface Policy<A extends string = string, P extends Permission = Permission> {
  /** The permission each action needs; its keys are the actions there are. */
  permissions: Readonly<Record<A, P>>;
  /**
   * Permissions of the type that no action here needs but a token may still carry (Keygen's):
   * listed before the actions' permissions in shared/auth/permissions.ts's order.
   */
  carried?: readonly P[];
  /**
   * Which of these permissions each kind of bearer holds (`*`: all of them); administrators hold
   * them all, an environment's bearer all but the account-level ones. What a kind of bearer
   * holds is the union over the policies (shared/auth/permissions.ts).
   */
  grants?: Readonly<Partial<Record<Grantee, readonly NoInfer<P>[] | '*'>>>;
  /** Actions that change the record: refused (403) on a record the request's environment only reads. */
  writes: ReadonlySet<string>;
  /** Account-level records (the account, its environments) belong to no environment: the scope does not judge them. */
  accountLevel?: boolean;
  reaches(actor: Principal, record: StoredItem): boolean | Promise<boolean>;
  /** Whether a record the bearer creates may name this one in a relationship; `reaches` when absent. */
  relatable?(actor: Principal, record: StoredItem): boolean | Promise<boolean>;
  /** Beyond holding the action's permission; record is absent for create and list. */
  may?(actor: Principal, action: A, record: StoredItem | undefined, context: ActionContext): Verdict | Promise<Verdict>;
  /**
   * What the action would hand over: a user given a role or credentials, a token given
   * permissions. No bearer grants more than it holds (docs/rules.md §7.1): each is refused (403)
   * unless the credential holds every permission it carries. Judged last, after the permission.
   */
  carries?(actor: Principal, action: A, record: StoredItem | undefined, context: ActionContext): readonly Carried[];
  /** Equality conditions the records of a list must meet for this bearer ({} = all the scope shows). */
  restrict?(actor: Principal): Record<string, string>;
  present?(actor: Principal, record: StoredItem): StoredItem;
}

/** Permissions an action would hand over, and what carries them (for the refusal's detail). */
export interface Carried {
  what: string;
  permissions: readonly Permission[];
}

/** Whether the credential may hand over `carried`: it holds every permission, or why not. */
export function grantable(bearer: Bearer, carried: Carried): Verdict {
  const missing = missingFrom(bearer, carried.permissions);
  if (missing.length === 0) return true;
  const shown = missing.slice(0, 5).join(', ') + (missing.length > 5 ? `, and ${missing.length - 5} more` : '');
  return `${carried.what} would carry permissions this credential does not hold: ${shown}`;
}

/** Where a token of `holder` lives: an environment's in the environment itself, any other's in its holder's environment. */
export const tokenHome = (holder: Pick<StoredItem, 'type' | 'id' | 'environmentId'>): string | null =>
  holder.type === 'environments' ? holder.id : (holder.environmentId ?? null);

/**
 * What a token generated for `holder` (a record that acts as a bearer: an environment, a
 * product, a license) carries: what its holder holds, in the token's home, of the permissions
 * asked (`changes.permissions`; `*`, all of them, when none are). Every policy of a type that
 * holds tokens judges `tokens.generate` with it, so no bearer mints a token carrying more than
 * it holds (docs/rules.md §7.1).
 */
export const tokenGrant = (
  _actor: Principal,
  action: string,
  record: StoredItem | undefined,
  { changes = {} }: ActionContext,
): readonly Carried[] => {
  if (action !== 'tokens.generate' || !record) return [];
  const kind = kindOf(record);
  if (!kind) return [];
  const { permissions: requested } = changes;
  const permissions = Array.isArray(requested) ? requested.filter((value): value is string => typeof value === 'string') : ['*'];
  return [{ what: 'The token', permissions: [...effectivePermissions(kind, tokenHome(record), permissions)] }];
};

/**
 * A policy, its actions the keys of its permissions: an action it does not have does not compile
 * where it is asked. The permissions its actions need and those it carries are the ones there
 * are (shared/auth/permissions.ts): its grants name only those.
 */
export const definePolicy = <const A extends string, const P extends Permission>(policy: Policy<A, P>): Policy<A, P> => policy;

/** The actions of a policy. */
export type ActionOf<P> = P extends Policy<infer A, Permission> ? A : never;

/** The permissions a policy names. */
export type PermissionOf<P> = P extends Policy<string, infer Q> ? Q : never;

export const isAdministrator = (bearer: Bearer) => bearer.kind === 'admin' || bearer.kind === 'environment';

/** An admin of the account itself, not one living inside an environment. */
export const isAccountAdmin = (bearer: Bearer) => bearer.kind === 'admin' && bearer.environmentId === null;

export const isSelf = (bearer: Bearer, record: StoredItem) => bearer.type === record.type && bearer.id === record.id;

export const administratorsOnly = (actor: Principal, action: string): Verdict =>
  isAdministrator(actor.bearer) || `Only administrators may ${action}`;

/** Whether the credential holds every one of `permissions` (what a thing it would get carries). */
export const holdsAll = (bearer: Bearer, permissions: readonly Permission[]): boolean => missingFrom(bearer, permissions).length === 0;

/** Those of `permissions` the credential does not hold. */
const missingFrom = (bearer: Bearer, permissions: readonly Permission[]) =>
  permissions.filter((permission) => !bearer.permissions.has(permission));
