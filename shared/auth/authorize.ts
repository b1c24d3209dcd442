/**
 * Applies the resource policies (shared/auth/policies/) to a request: the one way a service
 * asks whether its bearer may act. The order is the API's (docs/rules.md §2.3): after the account,
 * the environment and authentication come visibility (404), then permission (403); the
 * service checks the body (400) and the model's rules (422) after.
 */

import { refused } from '../errors.ts';
import { heldEntitlementIds } from '../licensing/held-entitlements.ts';
import { licensesOfUser } from '../resources/license-users/collections.ts';
import { licenseUserKey } from '../resources/license-users/entity.ts';
import { RecordNotFound } from '../store/errors.ts';
import type { RecordType } from '../store/keys.ts';
import { anyInCollection } from '../store/paging.ts';
import type { RecordOf } from '../store/record-types.ts';
import { getItem, getRecordItem, getVisibleItem, type Item, type StoredItem } from '../store/records.ts';
import type { Actor } from './actor.ts';
import { type Action, judge, POLICIES, type PolicyType } from './policies/index.ts';
import type { ActionContext, Policy, Principal } from './policies/policy.ts';

/**
 * The entitlements each request's bearer holds, read once per request (an Actor is made per
 * request): a list judges every record it shows, and holding one is the same question each time.
 */
const held = new WeakMap<Actor, Promise<Set<string>>>();

function heldEntitlements(actor: Actor): Promise<Set<string>> {
  let ids = held.get(actor);
  if (!ids) {
    ids = heldEntitlementIds(actor.scope, actor.bearer).then((found) => new Set(found));
    held.set(actor, ids);
  }
  return ids;
}

/** Whether the request's bearer is attached to each license asked, read once per request and license. */
const attachments = new WeakMap<Actor, Map<string, Promise<boolean>>>();

function attachedTo(actor: Actor, licenseId: string): Promise<boolean> {
  let known = attachments.get(actor);
  if (!known) {
    known = new Map();
    attachments.set(actor, known);
  }
  let attached = known.get(licenseId);
  if (!attached) {
    const { bearer, scope } = actor;
    attached =
      bearer.kind === 'user' ? getItem(licenseUserKey(scope.accountId, licenseId, bearer.id)).then(Boolean) : Promise.resolve(false);
    known.set(licenseId, attached);
  }
  return attached;
}

export function principalOf(actor: Actor): Principal {
  return {
    bearer: actor.bearer,
    scope: actor.scope,
    // The user's own licenses and those it is attached to, read until one matches.
    holdsLicense: (where) => anyInCollection(actor.scope, licensesOfUser(actor.scope.accountId, actor.bearer.id, where)),
    attachedTo: (licenseId) => attachedTo(actor, licenseId),
    licenseOf: async (record) =>
      typeof record.licenseId === 'string' ? getRecordItem(actor.scope.accountId, 'licenses', record.licenseId) : undefined,
    holdsEntitlement: async (entitlementId) => (await heldEntitlements(actor)).has(entitlementId),
  };
}

/**
 * The record `id` of `type` on which the bearer may do `action`; RecordNotFound (404) when it
 * may not see it, 403 when it sees it but may not do this. `id` may be a record already read
 * (environments are found by code as well as by id).
 */
export async function authorize<T extends PolicyType>(
  actor: Actor,
  type: T,
  id: string | StoredItem,
  action: Action<T>,
  context?: ActionContext,
): Promise<AuthorizedItem<T>> {
  actor.asked?.push(`${type}.${action}@record`);
  const item = typeof id === 'string' ? await getVisibleItem(actor.scope, type as RecordType, id) : id;
  const name = typeof id === 'string' ? id : id.id;
  if (!item) throw new RecordNotFound(type, name);
  const judgement = await judge(principalOf(actor), type, action, item, context);
  if (!judgement.allowed) throw judgement.status === 404 ? new RecordNotFound(type, name) : refused(judgement.detail);
  return item as AuthorizedItem<T>;
}

/** The stored item of a record of `T` (an attachment's holder, the account: any item). */
type AuthorizedItem<T extends PolicyType> = T extends RecordType ? StoredItem<RecordOf<T>> : StoredItem;

/** An action on a type rather than on one record: create, list (403 when refused). */
export async function authorizeAction<T extends PolicyType>(
  actor: Actor,
  type: T,
  action: Action<T>,
  context?: ActionContext,
): Promise<void> {
  actor.asked?.push(`${type}.${action}`);
  const judgement = await judge(principalOf(actor), type, action, undefined, context);
  if (!judgement.allowed) throw refused(judgement.detail);
}

/** Whether a new record of the bearer's may name this one (which the scope shows) in a relationship. */
export async function relatable(actor: Actor, type: PolicyType, item: StoredItem): Promise<boolean> {
  const policy: Policy = POLICIES[type];
  return (policy.relatable ?? policy.reaches)(principalOf(actor), item);
}

/** The conditions a list of `type` must meet for this bearer ({} = all the scope shows). */
export const restriction = (actor: Actor, type: PolicyType): Record<string, string> => POLICIES[type].restrict?.(principalOf(actor)) ?? {};

/**
 * The record the bearer stands for (GET /me), as it may see it. Every credential may learn whom
 * it stands for, whatever permissions it holds: authentication has admitted it already. Its
 * secrets follow `present` (a narrowed license token does not see its own key).
 */
export async function ownRecord(actor: Actor): Promise<Item> {
  const { type, id } = actor.bearer;
  const item = await getRecordItem(actor.scope.accountId, type, id);
  if (!item) throw new RecordNotFound(type, id);
  return present(actor, type, item);
}

/**
 * Whether the bearer sees a record the scope shows (its policy's reach), whatever it may do to
 * it: what tells a lookup by id from one by an alias that looks like an id.
 */
export async function sees(actor: Actor, type: PolicyType, item: StoredItem): Promise<boolean> {
  const judgement = await judge(principalOf(actor), type, 'read', item);
  return judgement.allowed || judgement.status !== 404;
}

/** A record as the bearer may see it: secret attributes it may not read are null. */
export function present<T>(actor: Actor, type: PolicyType, record: T): T {
  const policy = POLICIES[type] as { present?: (actor: Principal, record: Item) => Item };
  return (policy.present ? policy.present(principalOf(actor), record as Item) : record) as T;
}
