/**
 * Permission strings (`<resource>.<action>`) and what each kind of bearer holds. A token's
 * effective permissions are its own intersected with its bearer's; `*` means all of the
 * bearer's.
 */
import { ruleBroken } from '../errors.ts';

export const PERMISSIONS = [
  'account.read',
  'account.update',
  'user.create',
  'user.read',
  'user.update',
  'user.delete',
  'user.ban',
  'token.generate',
  'token.read',
  'token.revoke',
  'environment.create',
  'environment.read',
  'environment.update',
  'environment.delete',
  'environment.tokens.generate',
  'webhook-endpoint.create',
  'webhook-endpoint.read',
  'webhook-endpoint.update',
  'webhook-endpoint.delete',
  'webhook-event.read',
  'webhook-event.delete',
  'webhook-event.retry',
  'product.create',
  'product.read',
  'product.update',
  'product.delete',
  'product.tokens.generate',
  'policy.create',
  'policy.read',
  'policy.update',
  'policy.delete',
  'policy.entitlements.attach',
  'policy.entitlements.detach',
  'license.create',
  'license.read',
  'license.update',
  'license.delete',
  'license.validate',
  'license.check-out',
  'license.tokens.generate',
  'license.suspend',
  'license.reinstate',
  'license.renew',
  'license.revoke',
  'license.entitlements.attach',
  'license.entitlements.detach',
  'machine.create',
  'machine.read',
  'machine.update',
  'machine.delete',
  'machine.check-out',
  'machine.heartbeat.ping',
  'machine.heartbeat.reset',
  'component.create',
  'component.read',
  'component.update',
  'component.delete',
  'process.create',
  'process.read',
  'process.delete',
  'process.heartbeat.ping',
  'entitlement.create',
  'entitlement.read',
  'entitlement.update',
  'entitlement.delete',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export type BearerKind = 'admin' | 'user' | 'environment' | 'product' | 'license';

const ALL: readonly Permission[] = PERMISSIONS;

/**
 * What can be done inside one environment: everything but managing the account and its
 * environments, which only the account's own (global) admins do.
 */
const WITHIN_ENVIRONMENT = ALL.filter((p) => !p.startsWith('account.') && !p.startsWith('environment.'));

/**
 * What a licensee touches: reading their licensing graph (and what it entitles them to), activating,
 * pinging and deactivating machines, checking out files, starting, pinging and stopping processes.
 */
const LICENSEE: readonly Permission[] = [
  'product.read',
  'policy.read',
  'license.read',
  'license.validate',
  'entitlement.read',
  'license.check-out',
  'machine.create',
  'machine.read',
  'machine.delete',
  'machine.check-out',
  'machine.heartbeat.ping',
  'component.create',
  'component.read',
  'component.delete',
  'process.create',
  'process.read',
  'process.delete',
  'process.heartbeat.ping',
];

/**
 * A product bearer manages everything under its product (attaching entitlements to its policies
 * and licenses included), but not products themselves, and reads entitlements it does not manage.
 */
const PRODUCT_BEARER = ALL.filter(
  (p) =>
    ['policy.', 'license.', 'machine.', 'component.', 'process.'].some((prefix) => p.startsWith(prefix)) ||
    ['product.read', 'product.update', 'entitlement.read'].includes(p),
);

const BEARER_PERMISSIONS: Record<BearerKind, readonly Permission[]> = {
  admin: ALL,
  environment: WITHIN_ENVIRONMENT,
  // A user also renews and revokes the licenses they own (unless protected: shared/resources/licenses/policy.ts).
  user: ['user.read', 'user.update', 'token.generate', 'token.read', 'token.revoke', ...LICENSEE, 'license.renew', 'license.revoke'],
  product: ['token.read', 'token.revoke', ...PRODUCT_BEARER],
  license: ['token.read', 'token.revoke', ...LICENSEE],
};

export const isPermission = (value: string): value is Permission => (PERMISSIONS as readonly string[]).includes(value);

/**
 * What a bearer of `kind` living in `home` holds at most: an admin living inside an
 * environment holds what can be done inside it, an account's own admin everything.
 */
export function heldBy(kind: BearerKind, home: string | null): readonly Permission[] {
  return kind === 'admin' && home !== null ? WITHIN_ENVIRONMENT : BEARER_PERMISSIONS[kind];
}

/** A credential's permissions: the ones it was given (`*`: all) among those its bearer holds. */
export function effectivePermissions(kind: BearerKind, home: string | null, granted: readonly string[]): ReadonlySet<Permission> {
  const held = heldBy(kind, home);
  if (granted.includes('*')) return new Set(held);
  return new Set(held.filter((permission) => granted.includes(permission)));
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
