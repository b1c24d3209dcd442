/**
 * The licensing graph: products → policies → licenses → machines → components and processes.
 *
 *   administrators  everything the scope shows (admins and environment bearers)
 *   product         itself and every record under it; cannot create or delete products, nor
 *                   mint product tokens
 *   license         itself, its policy and product, its machines and their components and processes
 *   user            the licenses they own or are attached to, the machines, components and
 *                   processes they own or that hang on those licenses, and the products and
 *                   policies of those licenses; they renew and revoke their unprotected licenses
 *
 * Licensees (users and licenses) act on machines, components and processes within the permissions
 * they hold; a user never activates, deactivates or checks out on a protected license, nor starts,
 * pings or stops a process there. A license's key is shown to those who may change the license in
 * its own environment, to the license itself and to its owner — and only to a credential holding
 * every permission the key would give it: a key is a credential.
 */
import type { StoredItem } from '../../store/records.ts';
import type { Bearer } from '../bearer.ts';
import type { Permission } from '../permissions.ts';
import { isAdministrator, type Policy, type Principal } from './policy.ts';

/** The actions that make, read and change records of a type, and the permission each needs. */
export const crud = <const S extends 'product' | 'policy' | 'license' | 'machine' | 'component'>(singular: S) =>
  ({
    create: `${singular}.create`,
    list: `${singular}.read`,
    read: `${singular}.read`,
    update: `${singular}.update`,
    delete: `${singular}.delete`,
  }) as const;

export const CHANGES = new Set(['update', 'delete']);

/** The product a license bearer belongs to: authentication always gives a license bearer its ancestry. */
export function productOfLicense(bearer: Bearer): string {
  if (bearer.productId === undefined) throw new Error(`License bearer ${bearer.id} carries no product`);
  return bearer.productId;
}

type Reach = (bearer: Bearer, record: StoredItem, actor: Principal) => boolean | Promise<boolean>;

/** Reach in the graph, by kind of bearer; administrators reach everything the scope shows. */
export const reachedBy =
  (rules: Record<'product' | 'license' | 'user', Reach>) =>
  (actor: Principal, record: StoredItem): boolean | Promise<boolean> => {
    const kind = actor.bearer.kind;
    return kind === 'product' || kind === 'license' || kind === 'user' ? rules[kind](actor.bearer, record, actor) : true;
  };

/**
 * A check-out writes the record's `lastCheckOut`: like a change, it is refused on a record the
 * request's environment only reads (a global one seen from SHARED).
 */
export const CHECK_OUT = 'check-out';

/** Actions that read or make a record rather than change one. */
export const NOT_CHANGES: ReadonlySet<string> = new Set(['create', 'list', 'read']);

/**
 * Machines, components and processes: the records of a license's activations. `permissions`:
 * the permission each action needs; licensees (users) do `licenseeActions` only on a license that
 * is not protected.
 */
export function activations<const A extends string, const P extends Permission>(
  plural: 'machines' | 'components' | 'processes',
  permissions: Readonly<Record<A, P>>,
  licenseeActions: readonly NoInfer<A>[],
  grants: Policy<A, P>['grants'],
  /** Actions a user takes only as the license's owner (not as the record's owner, nor attached), on an unprotected license. */
  licenseOwnerActions: readonly NoInfer<A>[] = [],
): Policy<A, P> {
  return {
    permissions,
    grants,
    writes: new Set(Object.keys(permissions).filter((action) => !NOT_CHANGES.has(action))),
    reaches: reachedBy({
      product: (bearer, record) => record.productId === bearer.id,
      license: (bearer, record) => record.licenseId === bearer.id,
      // Its owner, its license's owner, and a user attached to its license (docs/rules.md §18.11).
      user: (bearer, record, actor) =>
        record.ownerId === bearer.id ||
        record.licenseOwnerId === bearer.id ||
        (typeof record.licenseId === 'string' && actor.attachedTo(record.licenseId)),
    }),
    async may(actor, action, record, context) {
      if (actor.bearer.kind !== 'user' || ![...licenseeActions, ...licenseOwnerActions].includes(action)) return true;
      const license = context.license ?? (record && (await actor.licenseOf(record)));
      // The license's owner as the license has it now, not as the record carries it (a hand-over may lag).
      if (licenseOwnerActions.includes(action) && license?.ownerId !== actor.bearer.id) {
        return `Only administrators, the product and the license's owner may ${action} ${plural}`;
      }
      if (license?.protected === true) {
        return `The license is protected: only administrators and its product may ${action} its ${plural}`;
      }
      return true;
    },
    restrict(actor): Record<string, string> {
      const { bearer } = actor;
      if (isAdministrator(bearer)) return {};
      if (bearer.kind === 'product') return { productId: bearer.id };
      if (bearer.kind === 'license') return { licenseId: bearer.id };
      return { ownerId: bearer.id };
    },
  };
}
