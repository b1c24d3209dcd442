/**
 * Applies the resource policies (shared/auth/policies/) to a request: the one way a service
 * asks whether its bearer may act. The order is the API's (docs/rules.md §1): after the account,
 * the environment and authentication come visibility (404), then permission (403); the
 * service checks the body (400) and the model's rules (422) after.
 */
import { forbidden } from '../http/errors.ts';
import type { RequestContext } from '../http/pipeline.ts';
import { RecordNotFound } from '../store/errors.ts';
import { SLOTS } from '../domain/licensing/slots.ts';
import { anyInCollection } from '../store/paging.ts';
import { recordKey, type RecordType } from '../store/keys.ts';
import { getItem, getVisibleItem, type Item } from '../store/records.ts';
import type { Bearer } from './bearer.ts';
import type { Permission } from './permissions.ts';
import { judge, POLICIES, type PolicyType } from './policies/index.ts';
import type { ActionContext, Actor, Policy } from './policies/policy.ts';

export type BearerContext = RequestContext & { bearer: Bearer };

export function actorOf(ctx: BearerContext): Actor {
  return {
    bearer: ctx.bearer,
    scope: ctx.scope,
    // The user's own licenses (their owner collection), read until one matches.
    ownsLicense: (where) =>
      anyInCollection(ctx.scope, {
        type: 'licenses',
        parent: { type: 'users', id: ctx.bearer.id, slot: SLOTS.licenses.owner },
        where: where as Record<string, string>,
      }),
    licenseOf: (record) => getItem(recordKey(ctx.scope.accountId, 'licenses', record.licenseId as string)),
  };
}

/**
 * The record `id` of `type` on which the bearer may do `action`; RecordNotFound (404) when it
 * may not see it, 403 when it sees it but may not do this. `id` may be a record already read
 * (environments are found by code as well as by id).
 */
export async function authorize(ctx: BearerContext, type: PolicyType, id: string | Item, action: string, context?: ActionContext): Promise<Item> {
  const item = typeof id === 'string' ? await getVisibleItem(ctx.scope, type as RecordType, id) : id;
  const name = typeof id === 'string' ? id : (id.id as string);
  if (!item) throw new RecordNotFound(type, name);
  const judgement = await judge(actorOf(ctx), type, action, item, context);
  if (!judgement.allowed) throw judgement.status === 404 ? new RecordNotFound(type, name) : forbidden(judgement.detail);
  return item;
}

/** An action on a type rather than on one record: create, list (403 when refused). */
export async function authorizeAction(ctx: BearerContext, type: PolicyType, action: string, context?: ActionContext): Promise<void> {
  const judgement = await judge(actorOf(ctx), type, action, undefined, context);
  if (!judgement.allowed) throw forbidden(judgement.detail);
}

/** Whether a new record of the bearer's may name this one (which the scope shows) in a relationship. */
export async function relatable(ctx: BearerContext, type: PolicyType, item: Item): Promise<boolean> {
  const policy: Policy = POLICIES[type];
  return (policy.relatable ?? policy.reaches)(actorOf(ctx), item);
}

/** The conditions a list of `type` must meet for this bearer ({} = all the scope shows). */
export const restriction = (ctx: BearerContext, type: PolicyType): Record<string, string> => POLICIES[type].restrict?.(actorOf(ctx)) ?? {};

/** A record as the bearer may see it: secret attributes it may not read are null. */
export function present<T>(ctx: BearerContext, type: PolicyType, record: T): T {
  const policy = POLICIES[type] as { present?: (actor: Actor, record: Item) => Item };
  return (policy.present ? policy.present(actorOf(ctx), record as Item) : record) as T;
}

/**
 * No bearer grants more than it holds (docs/rules.md §9): a role or a token is given only if every
 * permission it carries is held by the credential giving it.
 */
export function authorizeGrant(ctx: BearerContext, carried: Iterable<Permission>, what: string): void {
  const missing = [...carried].filter((permission) => !ctx.bearer.permissions.has(permission));
  if (missing.length === 0) return;
  const shown = missing.slice(0, 5).join(', ') + (missing.length > 5 ? `, and ${missing.length - 5} more` : '');
  throw forbidden(`${what} would carry permissions this credential does not hold: ${shown}`);
}
