/**
 * The licensing graph: products → policies → licenses → machines → components and processes.
 *
 *   administrators  everything the scope shows (admins and environment bearers)
 *   product         itself and every record under it; cannot create or delete products, nor
 *                   mint product tokens
 *   license         itself, its policy and product, its machines and their components and processes
 *   user            the licenses they own, the machines, components and processes they (or
 *                   their license's owner) own, and the products and policies of licenses they own;
 *                   they renew and revoke their unprotected licenses
 *
 * Licensees (users and licenses) act on machines, components and processes within the permissions
 * they hold; a user never activates, deactivates or checks out on a protected license, nor starts,
 * pings or stops a process there. A license's key is shown to those who may change the license in
 * its own environment, to the license itself and to its owner — and only to a credential holding
 * every permission the key would give it: a key is a credential.
 */

import type { Item } from '../../store/records.ts';
import { canWrite } from '../../store/scope.ts';
import type { Bearer } from '../bearer.ts';
import { heldBy, type Permission } from '../permissions.ts';
import { administratorsOnly, holdsAll, isAdministrator, type Policy, type Principal, type Verdict } from './policy.ts';

const crud = (singular: 'product' | 'policy' | 'license' | 'machine' | 'component'): Record<string, Permission> => ({
  create: `${singular}.create`,
  list: `${singular}.read`,
  read: `${singular}.read`,
  update: `${singular}.update`,
  delete: `${singular}.delete`,
});

const CHANGES = new Set(['update', 'delete']);

/** The product a license bearer belongs to: authentication always gives a license bearer its ancestry. */
function productOfLicense(bearer: Bearer): string {
  if (bearer.productId === undefined) throw new Error(`License bearer ${bearer.id} carries no product`);
  return bearer.productId;
}

type Reach = (bearer: Bearer, record: Item, actor: Principal) => boolean | Promise<boolean>;

/** Reach in the graph, by kind of bearer; administrators reach everything the scope shows. */
const reachedBy =
  (rules: Record<'product' | 'license' | 'user', Reach>) =>
  (actor: Principal, record: Item): boolean | Promise<boolean> => {
    const kind = actor.bearer.kind;
    return kind === 'product' || kind === 'license' || kind === 'user' ? rules[kind](actor.bearer, record, actor) : true;
  };

export const products: Policy = {
  permissions: { ...crud('product'), 'tokens.generate': 'product.tokens.generate' },
  writes: new Set([...CHANGES, 'tokens.generate']),
  reaches: reachedBy({
    product: (bearer, record) => record.id === bearer.id,
    license: (bearer, record) => record.id === bearer.productId,
    user: (_bearer, record, actor) => actor.ownsLicense({ productId: record.id as string }),
  }),
  may(actor, action) {
    if (['create', 'delete', 'tokens.generate'].includes(action)) {
      return administratorsOnly(actor, action === 'tokens.generate' ? 'generate product tokens' : `${action} products`);
    }
    return true;
  },
  restrict(actor): Record<string, string> {
    const { bearer } = actor;
    if (bearer.kind === 'product') return { id: bearer.id };
    if (bearer.kind === 'license') return { id: productOfLicense(bearer) };
    // A user's products are those of the licenses they own (products/service.ts reads them so).
    if (bearer.kind === 'user') return { licenseOwnerId: bearer.id };
    return {};
  },
};

export const policies: Policy = {
  permissions: crud('policy'),
  writes: CHANGES,
  reaches: reachedBy({
    product: (bearer, record) => record.productId === bearer.id,
    license: (bearer, record) => record.id === bearer.policyId,
    user: (_bearer, record, actor) => actor.ownsLicense({ policyId: record.id as string }),
  }),
  may(actor, action) {
    const { kind } = actor.bearer;
    if (action === 'list' && (kind === 'user' || kind === 'license')) return 'This bearer may read its policy by id only';
    return true;
  },
  restrict: (actor): Record<string, string> => (actor.bearer.kind === 'product' ? { productId: actor.bearer.id } : {}),
};

const reachesLicense = reachedBy({
  product: (bearer, record) => record.productId === bearer.id,
  license: (bearer, record) => record.id === bearer.id,
  user: (bearer, record) => record.ownerId === bearer.id,
}) as (actor: Principal, record: Item) => boolean; // every rule above answers at once

/**
 * A check-out writes the record's `lastCheckOut`: like a change, it is refused on a record the
 * request's environment only reads (a global one seen from SHARED).
 */
const CHECK_OUT = 'check-out';

/**
 * The lifecycle actions (docs/rules.md §11): suspending and reinstating are the administrators'
 * and the product's; renewing and revoking also the owning user's, unless the license is
 * protected. A license never acts on its own standing.
 */
const LIFECYCLE = {
  suspend: 'license.suspend',
  reinstate: 'license.reinstate',
  renew: 'license.renew',
  revoke: 'license.revoke',
} as const satisfies Record<string, Permission>;
const OWNER_ACTIONS: readonly string[] = ['renew', 'revoke'];

/** Who may take a lifecycle action besides holding its permission. */
function mayChangeStanding(actor: Principal, action: string, record: Item | undefined): Verdict {
  const { kind } = actor.bearer;
  if (isAdministrator(actor.bearer) || kind === 'product') return true;
  if (kind === 'user' && OWNER_ACTIONS.includes(action)) {
    return record?.protected !== true || `The license is protected: only administrators and its product may ${action} it`;
  }
  return `Only administrators and the license's product may ${action} licenses${OWNER_ACTIONS.includes(action) ? ' (and its owner, unless it is protected)' : ''}`;
}

export const licenses: Policy = {
  permissions: {
    ...crud('license'),
    'tokens.generate': 'license.tokens.generate',
    validate: 'license.validate',
    [CHECK_OUT]: 'license.check-out',
    ...LIFECYCLE,
  },
  writes: new Set([...CHANGES, 'tokens.generate', CHECK_OUT, ...Object.keys(LIFECYCLE)]),
  reaches: reachesLicense,
  may(actor, action, record) {
    if (Object.hasOwn(LIFECYCLE, action)) return mayChangeStanding(actor, action, record);
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
    const environmentId = (record.environmentId as string | null) ?? null;
    const entitled =
      (bearer.kind === 'license' && bearer.id === record.id) ||
      (bearer.kind === 'user' && bearer.id === record.ownerId) ||
      (canWrite(actor.scope, environmentId) && reachesLicense(actor, record) && bearer.permissions.has('license.update'));
    // The key is a credential: shown only to a credential that already holds all it would give.
    return entitled && holdsAll(bearer, heldBy('license', environmentId)) ? record : { ...record, key: null };
  },
};

/** Actions that read or make a record rather than change one. */
const NOT_CHANGES: ReadonlySet<string> = new Set(['create', 'list', 'read']);

/**
 * Machines, components and processes: the records of a license's activations. `permissions`:
 * the permission each action needs; licensees (users) do `licenseeActions` only on a license that
 * is not protected.
 */
function activations(
  plural: 'machines' | 'components' | 'processes',
  permissions: Readonly<Record<string, Permission>>,
  licenseeActions: readonly string[],
): Policy {
  return {
    permissions,
    writes: new Set(Object.keys(permissions).filter((action) => !NOT_CHANGES.has(action))),
    reaches: reachedBy({
      product: (bearer, record) => record.productId === bearer.id,
      license: (bearer, record) => record.licenseId === bearer.id,
      user: (bearer, record) => record.ownerId === bearer.id || record.licenseOwnerId === bearer.id,
    }),
    async may(actor, action, record, context) {
      if (actor.bearer.kind !== 'user' || !licenseeActions.includes(action)) return true;
      const license = context.license ?? (record && (await actor.licenseOf(record)));
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

/**
 * A machine's heartbeat (docs/rules.md §14.3): pinged by whoever may act on the machine (a user not
 * on a protected license), reset by administrators and its product only (licensees lack the permission).
 */
const HEARTBEAT_PING = 'heartbeat.ping';
const HEARTBEAT_RESET = 'heartbeat.reset';

export const machines = activations(
  'machines',
  {
    ...crud('machine'),
    [CHECK_OUT]: 'machine.check-out',
    [HEARTBEAT_PING]: 'machine.heartbeat.ping',
    [HEARTBEAT_RESET]: 'machine.heartbeat.reset',
  },
  ['create', 'delete', CHECK_OUT, HEARTBEAT_PING],
);
export const components = activations('components', crud('component'), ['create', 'delete']);

/**
 * Processes are reached as their machine is (they carry its owner and its license's owner), and
 * never updated: a ping is their one change besides removal (Keygen's process policy).
 */
const PING = 'ping';
export const processes = activations(
  'processes',
  { create: 'process.create', list: 'process.read', read: 'process.read', delete: 'process.delete', [PING]: 'process.heartbeat.ping' },
  ['create', 'delete', PING],
);
