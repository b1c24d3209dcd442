/**
 * Permission strings (`<resource>.<action>`) and what each kind of bearer holds. A token's
 * effective permissions are its own intersected with its bearer's; `*` means all of the
 * bearer's.
 *
 * Both are the policies' (shared/resources/<resource>/policy.ts, as the manifest lists them):
 * the permissions are those their actions need and those they carry, each policy says which
 * kinds of bearer hold which of its own. The policies cannot import this module (it loads the
 * manifest, which loads them): those that compare a credential with what a bearer holds read
 * it through shared/auth/held.ts, which this module supplies.
 */
import { ruleBroken } from '../errors.ts';
import { manifest } from '../resources/manifest.ts';
import { supplyHeldBy } from './held.ts';
import type { Grantee, Policy } from './policies/policy.ts';

/**
 * Every permission there is, so that a misspelt one does not compile. Written out: the policies'
 * types depend on it (a bearer's permissions, which they read), so it cannot be derived from them.
 * test/unit/permissions.test.ts checks that it names exactly the permissions the policies name.
 */
export type Permission =
  | 'account.read'
  | 'account.update'
  | 'user.create'
  | 'user.read'
  | 'user.update'
  | 'user.delete'
  | 'user.ban'
  | 'user.password.update'
  | 'user.tokens.generate'
  | 'user.second-factors.read'
  | 'user.second-factors.create'
  | 'user.second-factors.update'
  | 'user.second-factors.delete'
  | 'token.generate'
  | 'token.read'
  | 'token.regenerate'
  | 'token.revoke'
  | 'environment.create'
  | 'environment.read'
  | 'environment.update'
  | 'environment.delete'
  | 'environment.tokens.generate'
  | 'product.create'
  | 'product.read'
  | 'product.update'
  | 'product.delete'
  | 'product.tokens.generate'
  | 'policy.create'
  | 'policy.read'
  | 'policy.update'
  | 'policy.delete'
  | 'policy.pool.pop'
  | 'policy.entitlements.attach'
  | 'policy.entitlements.detach'
  | 'key.create'
  | 'key.read'
  | 'key.update'
  | 'key.delete'
  | 'license.create'
  | 'license.read'
  | 'license.update'
  | 'license.delete'
  | 'license.validate'
  | 'license.check-out'
  | 'license.tokens.generate'
  | 'license.suspend'
  | 'license.reinstate'
  | 'license.renew'
  | 'license.revoke'
  | 'license.usage.increment'
  | 'license.usage.decrement'
  | 'license.usage.reset'
  | 'license.check-in'
  | 'license.owner.update'
  | 'license.policy.update'
  | 'license.users.attach'
  | 'license.users.detach'
  | 'license.entitlements.attach'
  | 'license.entitlements.detach'
  | 'machine.create'
  | 'machine.read'
  | 'machine.update'
  | 'machine.delete'
  | 'machine.check-out'
  | 'machine.heartbeat.ping'
  | 'machine.heartbeat.reset'
  | 'machine.owner.update'
  | 'component.create'
  | 'component.read'
  | 'component.update'
  | 'component.delete'
  | 'process.create'
  | 'process.read'
  | 'process.update'
  | 'process.delete'
  | 'process.heartbeat.ping'
  | 'entitlement.create'
  | 'entitlement.read'
  | 'entitlement.update'
  | 'entitlement.delete'
  | 'webhook-endpoint.create'
  | 'webhook-endpoint.read'
  | 'webhook-endpoint.update'
  | 'webhook-endpoint.delete'
  | 'webhook-event.read'
  | 'webhook-event.delete'
  | 'webhook-event.retry';

export type BearerKind = 'admin' | 'user' | 'environment' | 'product' | 'license';

const policies: readonly Policy<string, Permission>[] = Object.values(manifest).flatMap((resource) =>
  'policies' in resource ? Object.values(resource.policies as Record<string, Policy<string, Permission>>) : [],
);

/** The permissions a policy names: those it carries, then those its actions need. */
const namedBy = (policy: Policy<string, Permission>): Permission[] => [
  ...(policy.carried ?? []),
  ...Object.values<Permission>(policy.permissions),
];

/** A permission's resource: what precedes its first dot (`policy` of `policy.entitlements.attach`). */
const resourceOf = (permission: string) => permission.slice(0, permission.indexOf('.'));

/**
 * Every permission, grouped by resource in the order the manifest first names each, and within
 * one in the order its policies name them (carried first): a stable order, in which a credential
 * lacking several is told of them.
 */
export const PERMISSIONS: readonly Permission[] = (() => {
  const named = [...new Set(policies.flatMap(namedBy))];
  const resources = [...new Set(named.map(resourceOf))];
  return resources.flatMap((resource) => named.filter((permission) => resourceOf(permission) === resource));
})();

const ALL: readonly Permission[] = PERMISSIONS;

/** The permissions of `policy` a kind of bearer holds. */
function grantedBy(policy: Policy<string, Permission>, grantee: Grantee): readonly Permission[] {
  const granted = policy.grants?.[grantee] ?? [];
  return granted === '*' ? namedBy(policy) : granted;
}

/** What the policies grant any of `grantees`, in PERMISSIONS' order. */
function granted(...grantees: Grantee[]): readonly Permission[] {
  const held = new Set(policies.flatMap((policy) => grantees.flatMap((grantee) => grantedBy(policy, grantee))));
  return ALL.filter((permission) => held.has(permission));
}

/**
 * What can be done inside one environment: everything but managing the account and its
 * environments (the account-level policies'), which only the account's own (global) admins do.
 */
const ACCOUNT_LEVEL = new Set(policies.filter((policy) => policy.accountLevel).flatMap(namedBy));
const WITHIN_ENVIRONMENT = ALL.filter((permission) => !ACCOUNT_LEVEL.has(permission));

const BEARER_PERMISSIONS: Record<BearerKind, readonly Permission[]> = {
  admin: ALL,
  environment: WITHIN_ENVIRONMENT,
  // A licensee reads their licensing graph (and what it entitles them to), activates, pings and
  // deactivates machines, checks out files, starts, pings and stops processes.
  user: granted('licensee', 'user'),
  // A product bearer manages everything under its product, but not products themselves.
  product: granted('product'),
  license: granted('licensee', 'license'),
};

export const isPermission = (value: string): value is Permission => (PERMISSIONS as readonly string[]).includes(value);

/**
 * What a bearer of `kind` living in `home` holds at most: an admin living inside an
 * environment holds what can be done inside it, an account's own admin everything.
 */
export function heldBy(kind: BearerKind, home: string | null): readonly Permission[] {
  return kind === 'admin' && home !== null ? WITHIN_ENVIRONMENT : BEARER_PERMISSIONS[kind];
}

/** Permissions strings a token may be given; `*` or known names only. */
export const unknownPermissions = (requested: readonly string[]) => requested.filter((p) => p !== '*' && !isPermission(p));

/**
 * A token's permissions as stored: each once, in the order given, so a token holds at most
 * PERMISSIONS.length + 1 (`*`) entries. 422 PERMISSIONS_NOT_ALLOWED names the unknown ones.
 */
export function normalisePermissions(requested: readonly string[]): string[] {
  const unknown = [...new Set(unknownPermissions(requested))];
  if (unknown.length > 0) {
    throw ruleBroken('PERMISSIONS_NOT_ALLOWED', `unsupported permissions: ${unknown.join(', ')}`, '/data/attributes/permissions');
  }
  return [...new Set(requested)];
}

/**
 * What a body may send: the known permissions and `*`, each a few times over, and none longer
 * than room for a name yet to come (the longest now has 27 characters); past that, refused
 * cheaply (400) rather than named back in a 422. Stored, a token holds at most
 * PERMISSIONS.length + 1 distinct entries: about 2 KB.
 */
export const MAX_REQUESTED_PERMISSIONS = 200;
export const MAX_PERMISSION_LENGTH = 64;

supplyHeldBy(heldBy);
