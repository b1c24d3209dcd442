/**
 * The permission matrix: every route of shared/routes.ts × every kind of bearer × where the
 * record lives → the status the API must answer. The expectations are written out by hand from
 * docs/rules.md (§5.2, §6, §7.1, §23.1) and docs/authorization.md — never computed from the policies — and
 * checked against the policies' judgement by test/unit/permission-matrix.test.ts (without a table
 * or a server), and over HTTP for records in S and global ones by the five
 * test/http/permission-matrix-<part>.test.ts files (permission-matrix-http.ts).
 *
 * Every request is made inside a SHARED environment S. Bearers: the account's global admin, an
 * admin user living in S, S's environment token, an S token narrowed to read permissions only,
 * and the product, license (token and key), owning user, another user and a user attached to the
 * license (docs/rules.md §18.11) of the record's own licensing graph. Homes: the record in S itself; a global record (seen read-only from S); a
 * record of another environment; a record of another account.
 */
import { heldBy, type Permission } from '#shared/auth/permissions.ts';
import type { PolicyType } from '#shared/auth/policies/index.ts';
import { routes } from '#shared/routes.ts';

export const BEARERS = [
  'globalAdmin',
  'envAdmin',
  'envToken',
  'narrowToken',
  'product',
  'licenseToken',
  'licenseKey',
  'owner',
  'otherUser',
  'attachedUser',
] as const;
export type BearerName = (typeof BEARERS)[number];

/**
 * The records a route is about: the graph's product, policy (with a pool), license, machine,
 * component, process (R, on the machine), owner, token, endpoint, event; an entitlement the license
 * holds (N); a key of the policy's pool (K); S itself.
 */
export type Ref = 'P' | 'Q' | 'L' | 'M' | 'C' | 'R' | 'U' | 'T' | 'W' | 'X' | 'N' | 'K' | 'S';

/** One question a route asks of the policies, in the order it asks them. */
export type Step =
  | { type: PolicyType; action: string; record?: Ref }
  /** A create body's relationship naming `record`: the bearer must reach it (else 422). */
  | { relate: PolicyType; record: Ref }
  /** What the request would grant (a role, a token): every permission held by the bearer (else 403). */
  | { grant: (home: string | null) => readonly Permission[] };

/**
 * Per route: the questions it asks, and the status for each bearer (columns in BEARERS order)
 * when the record is in S. Routes without a bearer (log-in, password reset, validate-key, the
 * reset form) are `public`: the credential in the request is the only authority.
 */
export const MATRIX: Record<string, { steps: Step[]; same: string } | 'public'> = {
  //                                                                                          GA  EA  ET  NT  PR  LT  LK  OW  OU  AU
  'openapi.retrieve': 'public',
  'reference.page': 'public',

  'accounts.retrieve': { steps: [{ type: 'accounts', action: 'read' }], same: '200 403 403 403 403 403 403 403 403 403' },
  'accounts.update': { steps: [{ type: 'accounts', action: 'update' }], same: '200 403 403 403 403 403 403 403 403 403' },

  'users.create': {
    steps: [{ type: 'users', action: 'create' }, { grant: (home) => heldBy('user', home) }],
    same: '201 201 201 403 403 403 403 403 403 403',
  },
  'users.list': { steps: [{ type: 'users', action: 'list' }], same: '200 200 200 200 403 403 403 403 403 403' },
  'users.retrieve': { steps: [{ type: 'users', action: 'read', record: 'U' }], same: '200 200 200 200 404 404 404 200 404 404' },
  'users.update': { steps: [{ type: 'users', action: 'update', record: 'U' }], same: '200 200 200 403 404 404 404 200 404 404' },
  'users.delete': { steps: [{ type: 'users', action: 'delete', record: 'U' }], same: '204 204 204 403 404 404 404 403 404 404' },
  'users.ban': { steps: [{ type: 'users', action: 'ban', record: 'U' }], same: '200 200 200 403 404 404 404 403 404 404' },
  'users.unban': { steps: [{ type: 'users', action: 'unban', record: 'U' }], same: '200 200 200 403 404 404 404 403 404 404' },
  'users.resetPassword': 'public',
  // Administrators give a user a token (the user's own log-in is POST /tokens).
  'users.tokens.generate': {
    steps: [{ type: 'users', action: 'tokens.generate', record: 'U' }, { grant: (home) => heldBy('user', home) }],
    same: '200 200 200 403 404 404 404 403 404 404',
  },
  // Only the user themself, given the password it replaces; administrators PATCH another's.
  'users.updatePassword': {
    steps: [{ type: 'users', action: 'password.update', record: 'U' }],
    same: '403 403 403 403 404 404 404 200 404 404',
  },
  // A user's second factor: the user's own and administrators'; the others do not see the user.
  'secondFactors.list': {
    steps: [{ type: 'users', action: 'second-factors.read', record: 'U' }],
    same: '200 200 200 200 404 404 404 200 404 404',
  },
  'secondFactors.retrieve': {
    steps: [{ type: 'users', action: 'second-factors.read', record: 'U' }],
    same: '200 200 200 200 404 404 404 200 404 404',
  },
  'secondFactors.create': {
    steps: [{ type: 'users', action: 'second-factors.create', record: 'U' }],
    same: '201 201 201 403 404 404 404 201 404 404',
  },
  'secondFactors.update': {
    steps: [{ type: 'users', action: 'second-factors.update', record: 'U' }],
    same: '200 200 200 403 404 404 404 200 404 404',
  },
  'secondFactors.delete': {
    steps: [{ type: 'users', action: 'second-factors.delete', record: 'U' }],
    same: '204 204 204 403 404 404 404 204 404 404',
  },
  'users.tokens': {
    steps: [
      { type: 'users', action: 'read', record: 'U' },
      { type: 'tokens', action: 'list' },
    ],
    same: '200 200 200 200 404 404 404 200 404 404',
  },
  'users.licenses': {
    steps: [
      { type: 'users', action: 'read', record: 'U' },
      { type: 'licenses', action: 'list' },
    ],
    same: '200 200 200 200 404 404 404 200 404 404',
  },
  'users.machines': {
    steps: [
      { type: 'users', action: 'read', record: 'U' },
      { type: 'machines', action: 'list' },
    ],
    same: '200 200 200 200 404 404 404 200 404 404',
  },
  'users.products': {
    steps: [
      { type: 'users', action: 'read', record: 'U' },
      { type: 'products', action: 'list' },
    ],
    same: '200 200 200 200 404 404 404 200 404 404',
  },

  'tokens.generate': 'public',
  'tokens.list': { steps: [{ type: 'tokens', action: 'list' }], same: '200 200 200 200 200 200 200 200 200 200' },
  'tokens.retrieve': { steps: [{ type: 'tokens', action: 'read', record: 'T' }], same: '200 200 200 200 404 404 404 200 404 404' },
  'tokens.regenerate': { steps: [{ type: 'tokens', action: 'regenerate', record: 'T' }], same: '200 200 200 403 404 404 404 200 404 404' },
  'tokens.revoke': { steps: [{ type: 'tokens', action: 'revoke', record: 'T' }], same: '204 204 204 403 404 404 404 204 404 404' },
  // No question asked: every credential may read whom it stands for (docs/authorization.md).
  'me.retrieve': { steps: [], same: '200 200 200 200 200 200 200 200 200 200' },

  'passwords.request': 'public',
  'passwords.form': 'public',

  'environments.create': { steps: [{ type: 'environments', action: 'create' }], same: '201 403 403 403 403 403 403 403 403 403' },
  'environments.list': { steps: [{ type: 'environments', action: 'list' }], same: '200 403 403 403 403 403 403 403 403 403' },
  'environments.retrieve': {
    steps: [{ type: 'environments', action: 'read', record: 'S' }],
    same: '200 403 403 403 403 403 403 403 403 403',
  },
  'environments.update': {
    steps: [{ type: 'environments', action: 'update', record: 'S' }],
    same: '200 403 403 403 403 403 403 403 403 403',
  },
  'environments.delete': {
    steps: [{ type: 'environments', action: 'delete', record: 'S' }],
    same: '204 403 403 403 403 403 403 403 403 403',
  },
  'environments.tokens.generate': {
    steps: [{ type: 'environments', action: 'tokens.generate', record: 'S' }, { grant: (home) => heldBy('environment', home) }],
    same: '200 403 403 403 403 403 403 403 403 403',
  },
  'environments.tokens.list': {
    steps: [{ type: 'environments', action: 'tokens.list', record: 'S' }],
    same: '200 403 403 403 403 403 403 403 403 403',
  },

  'products.create': { steps: [{ type: 'products', action: 'create' }], same: '201 201 201 403 403 403 403 403 403 403' },
  'products.list': { steps: [{ type: 'products', action: 'list' }], same: '200 200 200 200 200 200 200 200 200 200' },
  'products.retrieve': { steps: [{ type: 'products', action: 'read', record: 'P' }], same: '200 200 200 200 200 200 200 200 404 200' },
  'products.update': { steps: [{ type: 'products', action: 'update', record: 'P' }], same: '200 200 200 403 200 403 403 403 404 403' },
  'products.delete': { steps: [{ type: 'products', action: 'delete', record: 'P' }], same: '204 204 204 403 403 403 403 403 404 403' },
  'products.tokens.generate': {
    steps: [{ type: 'products', action: 'tokens.generate', record: 'P' }, { grant: (home) => heldBy('product', home) }],
    same: '200 200 200 403 403 403 403 403 404 403',
  },

  'policies.create': {
    steps: [
      { type: 'policies', action: 'create' },
      { relate: 'products', record: 'P' },
    ],
    same: '201 201 201 403 201 403 403 403 403 403',
  },
  'policies.list': { steps: [{ type: 'policies', action: 'list' }], same: '200 200 200 200 200 403 403 403 403 403' },
  'policies.retrieve': { steps: [{ type: 'policies', action: 'read', record: 'Q' }], same: '200 200 200 200 200 200 200 200 404 200' },
  'policies.update': { steps: [{ type: 'policies', action: 'update', record: 'Q' }], same: '200 200 200 403 200 403 403 403 404 403' },
  'policies.delete': { steps: [{ type: 'policies', action: 'delete', record: 'Q' }], same: '204 204 204 403 204 403 403 403 404 403' },
  'policies.entitlements': {
    steps: [
      { type: 'policies', action: 'read', record: 'Q' },
      { type: 'policy-entitlements', action: 'list', record: 'Q' },
    ],
    same: '200 200 200 200 200 200 200 200 404 200',
  },
  'policies.entitlements.attach': {
    steps: [
      { type: 'policies', action: 'read', record: 'Q' },
      { type: 'policy-entitlements', action: 'attach', record: 'Q' },
    ],
    same: '200 200 200 403 200 403 403 403 404 403',
  },
  'policies.entitlements.detach': {
    steps: [
      { type: 'policies', action: 'read', record: 'Q' },
      { type: 'policy-entitlements', action: 'detach', record: 'Q' },
    ],
    same: '204 204 204 403 204 403 403 403 404 403',
  },

  // A policy's pool of keys: administrators' and the product's; licensees never see it.
  'keys.create': {
    steps: [
      { type: 'keys', action: 'create' },
      { relate: 'policies', record: 'Q' },
    ],
    same: '201 201 201 403 201 403 403 403 403 403',
  },
  'keys.list': { steps: [{ type: 'keys', action: 'list' }], same: '200 200 200 200 200 403 403 403 403 403' },
  'keys.retrieve': { steps: [{ type: 'keys', action: 'read', record: 'K' }], same: '200 200 200 200 200 404 404 404 404 404' },
  'keys.update': { steps: [{ type: 'keys', action: 'update', record: 'K' }], same: '200 200 200 403 200 404 404 404 404 404' },
  'keys.delete': { steps: [{ type: 'keys', action: 'delete', record: 'K' }], same: '204 204 204 403 204 404 404 404 404 404' },
  // Licensees read their policy, not its pool.
  'policies.pool': {
    steps: [
      { type: 'policies', action: 'read', record: 'Q' },
      { type: 'keys', action: 'list' },
    ],
    same: '200 200 200 200 200 403 403 403 404 403',
  },
  'policies.pool.pop': { steps: [{ type: 'policies', action: 'pool.pop', record: 'Q' }], same: '200 200 200 403 200 403 403 403 404 403' },

  // A license's owner: administrators' and its product's to change, as Keygen's.
  'licenses.changeOwner': {
    steps: [{ type: 'licenses', action: 'owner.update', record: 'L' }],
    same: '200 200 200 403 200 403 403 403 404 403',
  },
  'licenses.changeUser': {
    steps: [{ type: 'licenses', action: 'owner.update', record: 'L' }],
    same: '200 200 200 403 200 403 403 403 404 403',
  },
  // A license's policy: administrators', its product's and its owner's (an unprotected license) to change.
  'licenseRelationships.changePolicy': {
    steps: [{ type: 'licenses', action: 'policy.update', record: 'L' }],
    same: '200 200 200 403 200 403 403 200 404 403',
  },
  'licenses.create': {
    steps: [
      { type: 'licenses', action: 'create' },
      { relate: 'policies', record: 'Q' },
    ],
    same: '201 201 201 403 201 403 403 403 403 403',
  },
  'licenses.list': { steps: [{ type: 'licenses', action: 'list' }], same: '200 200 200 200 200 200 200 200 200 200' },
  'licenses.retrieve': { steps: [{ type: 'licenses', action: 'read', record: 'L' }], same: '200 200 200 200 200 200 200 200 404 200' },
  'licenses.update': { steps: [{ type: 'licenses', action: 'update', record: 'L' }], same: '200 200 200 403 200 403 403 403 404 403' },
  'licenses.delete': { steps: [{ type: 'licenses', action: 'delete', record: 'L' }], same: '204 204 204 403 204 403 403 403 404 403' },
  'licenses.tokens.generate': {
    steps: [{ type: 'licenses', action: 'tokens.generate', record: 'L' }, { grant: (home) => heldBy('license', home) }],
    same: '200 200 200 403 200 403 403 403 404 403',
  },
  'licenses.validate': { steps: [{ type: 'licenses', action: 'validate', record: 'L' }], same: '200 200 200 403 200 200 200 200 404 200' },
  // A license's lifecycle: its owner renews and revokes an unprotected license; a license never acts on its own standing.
  'licenses.suspend': { steps: [{ type: 'licenses', action: 'suspend', record: 'L' }], same: '200 200 200 403 200 403 403 403 404 403' },
  'licenses.reinstate': {
    steps: [{ type: 'licenses', action: 'reinstate', record: 'L' }],
    same: '200 200 200 403 200 403 403 403 404 403',
  },
  'licenses.renew': { steps: [{ type: 'licenses', action: 'renew', record: 'L' }], same: '200 200 200 403 200 403 403 200 404 403' },
  'licenses.revoke': { steps: [{ type: 'licenses', action: 'revoke', record: 'L' }], same: '204 204 204 403 204 403 403 204 404 403' },
  // Usage metering: the license and its owner (the license is unprotected) count uses; lowering and resetting is the administrators' and the product's.
  'licenses.incrementUsage': {
    steps: [{ type: 'licenses', action: 'usage.increment', record: 'L' }],
    same: '200 200 200 403 200 200 200 200 404 200',
  },
  'licenses.decrementUsage': {
    steps: [{ type: 'licenses', action: 'usage.decrement', record: 'L' }],
    same: '200 200 200 403 200 403 403 403 404 403',
  },
  'licenses.resetUsage': {
    steps: [{ type: 'licenses', action: 'usage.reset', record: 'L' }],
    same: '200 200 200 403 200 403 403 403 404 403',
  },
  'licenses.checkIn': { steps: [{ type: 'licenses', action: 'check-in', record: 'L' }], same: '200 200 200 403 200 200 200 200 404 200' },
  'licenses.validateKey': 'public',
  'licenses.checkOut': { steps: [{ type: 'licenses', action: 'check-out', record: 'L' }], same: '200 200 200 403 200 200 200 200 404 200' },
  'licenses.checkOutFile': {
    steps: [{ type: 'licenses', action: 'check-out', record: 'L' }],
    same: '200 200 200 403 200 200 200 200 404 200',
  },
  'licenses.machines': {
    steps: [
      { type: 'licenses', action: 'read', record: 'L' },
      { type: 'machines', action: 'list' },
    ],
    same: '200 200 200 200 200 200 200 200 404 200',
  },
  'licenses.policy': {
    steps: [
      { type: 'licenses', action: 'read', record: 'L' },
      { type: 'policies', action: 'read', record: 'Q' },
    ],
    same: '200 200 200 200 200 200 200 200 404 200',
  },
  'licenses.product': {
    steps: [
      { type: 'licenses', action: 'read', record: 'L' },
      { type: 'products', action: 'read', record: 'P' },
    ],
    same: '200 200 200 200 200 200 200 200 404 200',
  },
  'licenses.owner': {
    steps: [
      { type: 'licenses', action: 'read', record: 'L' },
      { type: 'users', action: 'read', record: 'U' },
    ],
    same: '200 200 200 200 404 404 404 200 404 404',
  },
  'licenses.entitlements': {
    steps: [
      { type: 'licenses', action: 'read', record: 'L' },
      { type: 'license-entitlements', action: 'list', record: 'L' },
    ],
    same: '200 200 200 200 200 200 200 200 404 200',
  },
  'licenses.entitlements.attach': {
    steps: [
      { type: 'licenses', action: 'read', record: 'L' },
      { type: 'license-entitlements', action: 'attach', record: 'L' },
    ],
    same: '200 200 200 403 200 403 403 403 404 403',
  },
  'licenses.entitlements.detach': {
    steps: [
      { type: 'licenses', action: 'read', record: 'L' },
      { type: 'license-entitlements', action: 'detach', record: 'L' },
    ],
    same: '204 204 204 403 204 403 403 403 404 403',
  },
  // A license's users (docs/rules.md §18.11): its users and administrators list them (they read users);
  // administrators, its product and its owner attach and detach them, not a user attached.
  'licenseUsers.list': {
    steps: [{ type: 'license-users', action: 'list', record: 'L' }],
    same: '200 200 200 200 403 403 403 200 404 200',
  },
  'licenseUsers.attach': {
    steps: [{ type: 'license-users', action: 'attach', record: 'L' }],
    same: '200 200 200 403 200 403 403 200 404 403',
  },
  'licenseUsers.detach': {
    steps: [{ type: 'license-users', action: 'detach', record: 'L' }],
    same: '204 204 204 403 204 403 403 204 404 403',
  },

  'machines.create': {
    steps: [
      { type: 'machines', action: 'create' },
      { relate: 'licenses', record: 'L' },
      { type: 'machines', action: 'create' },
    ],
    same: '201 201 201 403 201 201 201 201 422 201',
  },
  // A machine's owner: administrators', its product's and its license's owner's to change (to one of the license's users).
  'machineRelationships.changeOwner': {
    steps: [{ type: 'machines', action: 'owner.update', record: 'M' }],
    same: '200 200 200 403 200 403 403 200 404 403',
  },
  'machines.list': { steps: [{ type: 'machines', action: 'list' }], same: '200 200 200 200 200 200 200 200 200 200' },
  'machines.retrieve': { steps: [{ type: 'machines', action: 'read', record: 'M' }], same: '200 200 200 200 200 200 200 200 404 200' },
  'machines.update': { steps: [{ type: 'machines', action: 'update', record: 'M' }], same: '200 200 200 403 200 403 403 403 404 403' },
  'machines.delete': { steps: [{ type: 'machines', action: 'delete', record: 'M' }], same: '204 204 204 403 204 204 204 204 404 204' },
  'machines.checkOut': { steps: [{ type: 'machines', action: 'check-out', record: 'M' }], same: '200 200 200 403 200 200 200 200 404 200' },
  'machines.checkOutFile': {
    steps: [{ type: 'machines', action: 'check-out', record: 'M' }],
    same: '200 200 200 403 200 200 200 200 404 200',
  },
  // Pinged by whoever acts on the machine (a user not on a protected license), reset by administrators and its product.
  'machines.ping': {
    steps: [{ type: 'machines', action: 'heartbeat.ping', record: 'M' }],
    same: '200 200 200 403 200 200 200 200 404 200',
  },
  'machines.pingHeartbeat': {
    steps: [{ type: 'machines', action: 'heartbeat.ping', record: 'M' }],
    same: '200 200 200 403 200 200 200 200 404 200',
  },
  'machines.reset': {
    steps: [{ type: 'machines', action: 'heartbeat.reset', record: 'M' }],
    same: '200 200 200 403 200 403 403 403 404 403',
  },
  'machines.resetHeartbeat': {
    steps: [{ type: 'machines', action: 'heartbeat.reset', record: 'M' }],
    same: '200 200 200 403 200 403 403 403 404 403',
  },
  'machines.components': {
    steps: [
      { type: 'machines', action: 'read', record: 'M' },
      { type: 'components', action: 'list' },
    ],
    same: '200 200 200 200 200 200 200 200 404 200',
  },
  'machines.license': {
    steps: [
      { type: 'machines', action: 'read', record: 'M' },
      { type: 'licenses', action: 'read', record: 'L' },
    ],
    same: '200 200 200 200 200 200 200 200 404 200',
  },
  'machines.processes': {
    steps: [
      { type: 'machines', action: 'read', record: 'M' },
      { type: 'processes', action: 'list' },
    ],
    same: '200 200 200 200 200 200 200 200 404 200',
  },

  'components.create': {
    steps: [
      { type: 'components', action: 'create' },
      { relate: 'machines', record: 'M' },
      { type: 'components', action: 'create' },
    ],
    same: '201 201 201 403 201 201 201 201 422 201',
  },
  'components.list': { steps: [{ type: 'components', action: 'list' }], same: '200 200 200 200 200 200 200 200 200 200' },
  'components.retrieve': { steps: [{ type: 'components', action: 'read', record: 'C' }], same: '200 200 200 200 200 200 200 200 404 200' },
  'components.update': { steps: [{ type: 'components', action: 'update', record: 'C' }], same: '200 200 200 403 200 403 403 403 404 403' },
  'components.delete': { steps: [{ type: 'components', action: 'delete', record: 'C' }], same: '204 204 204 403 204 204 204 204 404 204' },
  'components.machine': {
    steps: [
      { type: 'components', action: 'read', record: 'C' },
      { type: 'machines', action: 'read', record: 'M' },
    ],
    same: '200 200 200 200 200 200 200 200 404 200',
  },
  'components.license': {
    steps: [
      { type: 'components', action: 'read', record: 'C' },
      { type: 'licenses', action: 'read', record: 'L' },
    ],
    same: '200 200 200 200 200 200 200 200 404 200',
  },
  'components.product': {
    steps: [
      { type: 'components', action: 'read', record: 'C' },
      { type: 'products', action: 'read', record: 'P' },
    ],
    same: '200 200 200 200 200 200 200 200 404 200',
  },

  // Processes: as their machine, but never updated; a ping is a change (403 on a global process seen from S).
  'processes.create': {
    steps: [
      { type: 'processes', action: 'create' },
      { relate: 'machines', record: 'M' },
      { type: 'processes', action: 'create' },
    ],
    same: '201 201 201 403 201 201 201 201 422 201',
  },
  'processes.list': { steps: [{ type: 'processes', action: 'list' }], same: '200 200 200 200 200 200 200 200 200 200' },
  'processes.retrieve': { steps: [{ type: 'processes', action: 'read', record: 'R' }], same: '200 200 200 200 200 200 200 200 404 200' },
  'processes.update': { steps: [{ type: 'processes', action: 'update', record: 'R' }], same: '200 200 200 403 200 200 200 200 404 200' },
  'processes.delete': { steps: [{ type: 'processes', action: 'delete', record: 'R' }], same: '204 204 204 403 204 204 204 204 404 204' },
  'processes.ping': { steps: [{ type: 'processes', action: 'ping', record: 'R' }], same: '200 200 200 403 200 200 200 200 404 200' },
  'processes.machine': {
    steps: [
      { type: 'processes', action: 'read', record: 'R' },
      { type: 'machines', action: 'read', record: 'M' },
    ],
    same: '200 200 200 200 200 200 200 200 404 200',
  },
  'processes.license': {
    steps: [
      { type: 'processes', action: 'read', record: 'R' },
      { type: 'licenses', action: 'read', record: 'L' },
    ],
    same: '200 200 200 200 200 200 200 200 404 200',
  },
  'processes.product': {
    steps: [
      { type: 'processes', action: 'read', record: 'R' },
      { type: 'products', action: 'read', record: 'P' },
    ],
    same: '200 200 200 200 200 200 200 200 404 200',
  },

  // Licensees see the entitlements they hold (N: through their license's policy), and change none.
  'entitlements.create': { steps: [{ type: 'entitlements', action: 'create' }], same: '201 201 201 403 403 403 403 403 403 403' },
  'entitlements.list': { steps: [{ type: 'entitlements', action: 'list' }], same: '200 200 200 200 200 200 200 200 200 200' },
  'entitlements.retrieve': {
    steps: [{ type: 'entitlements', action: 'read', record: 'N' }],
    same: '200 200 200 200 200 200 200 200 404 200',
  },
  'entitlements.update': {
    steps: [{ type: 'entitlements', action: 'update', record: 'N' }],
    same: '200 200 200 403 403 403 403 403 404 403',
  },
  'entitlements.delete': {
    steps: [{ type: 'entitlements', action: 'delete', record: 'N' }],
    same: '204 204 204 403 403 403 403 403 404 403',
  },

  'webhookEndpoints.create': { steps: [{ type: 'webhook-endpoints', action: 'create' }], same: '201 201 201 403 403 403 403 403 403 403' },
  'webhookEndpoints.list': { steps: [{ type: 'webhook-endpoints', action: 'list' }], same: '200 200 200 200 403 403 403 403 403 403' },
  'webhookEndpoints.retrieve': {
    steps: [{ type: 'webhook-endpoints', action: 'read', record: 'W' }],
    same: '200 200 200 200 404 404 404 404 404 404',
  },
  'webhookEndpoints.update': {
    steps: [{ type: 'webhook-endpoints', action: 'update', record: 'W' }],
    same: '200 200 200 403 404 404 404 404 404 404',
  },
  'webhookEndpoints.delete': {
    steps: [{ type: 'webhook-endpoints', action: 'delete', record: 'W' }],
    same: '204 204 204 403 404 404 404 404 404 404',
  },

  // Events carry every change, secrets included: a read-only credential is refused them (403).
  'webhookEvents.list': { steps: [{ type: 'webhook-events', action: 'list' }], same: '200 200 200 403 403 403 403 403 403 403' },
  'webhookEvents.retrieve': {
    steps: [{ type: 'webhook-events', action: 'read', record: 'X' }],
    same: '200 200 200 403 404 404 404 404 404 404',
  },
  'webhookEvents.delete': {
    steps: [{ type: 'webhook-events', action: 'delete', record: 'X' }],
    same: '204 204 204 403 404 404 404 404 404 404',
  },
  'webhookEvents.retry': {
    steps: [{ type: 'webhook-events', action: 'retry', record: 'X' }],
    same: '201 201 201 403 404 404 404 404 404 404',
  },
};

export type Home = 'same' | 'global' | 'otherEnvironment' | 'otherAccount';
export const HOMES: readonly Home[] = ['same', 'global', 'otherEnvironment', 'otherAccount'];

/** Records an environment keeps to itself even from a SHARED one (docs/rules.md §5.2, §7.1). */
export const PRIVATE_REFS: readonly Ref[] = ['T', 'W', 'X', 'K'];

const isSuccess = (status: number) => status >= 200 && status < 300;

/**
 * The status when the record lives elsewhere, from the status it gets in S (docs/rules.md §5.2, §7.1):
 * - global, seen from SHARED: licensing records and users readable, never writable (a success
 *   of a change becomes 403); tokens, endpoints and events invisible (404);
 * - another environment or another account: nothing is visible (404), and a create naming a
 *   record there finds no such record (422).
 * Routes about the account or its environments, and lists and creates that name no record, do
 * not depend on a record's home.
 */
export function expectedStatus(route: string, bearer: BearerName, home: Home): number | undefined {
  const entry = MATRIX[route];
  if (entry === undefined || entry === 'public') return undefined;
  const same = Number(entry.same.split(/\s+/)[BEARERS.indexOf(bearer)]);
  if (home === 'same') return same;
  const refs = entry.steps.flatMap((step) => ('record' in step && step.record ? [step.record] : []));
  if (refs.length === 0 || refs.includes('S')) return undefined;
  const related = entry.steps.some((step) => 'relate' in step);
  if (home === 'global') {
    if (refs.some((ref) => PRIVATE_REFS.includes(ref))) return 404;
    return isSuccess(same) && WRITES.has(route) ? 403 : same;
  }
  if (related) return isSuccess(same) ? 422 : same;
  return 404;
}

/**
 * Routes that change the record they name (not counting creates, which make a new one in S); a
 * check-out, by either method, sets the record's lastCheckOut.
 */
export const WRITES: ReadonlySet<string> = new Set(
  routes
    .filter((route) => route.method !== 'GET' || route.path.endsWith('/actions/check-out'))
    .filter((route) => route.path.includes('{id}') && !route.operation.endsWith('.validate'))
    .map((route) => route.operation),
);

/** The parts the HTTP matrix is asked in, by the resource a route's path names (`account`: the account itself). */
export const MATRIX_PARTS = {
  people: ['account', 'users', 'tokens', 'me', 'environments', 'webhook-endpoints', 'webhook-events'],
  catalogue: ['products', 'policies', 'keys', 'entitlements'],
  licenses: ['licenses'],
  machines: ['machines'],
  parts: ['components', 'processes'],
} as const satisfies Record<string, readonly string[]>;
export type MatrixPart = keyof typeof MATRIX_PARTS;

/** The resource a route's path names: its fourth segment, or `account` for the account's own routes. */
export const resourceOf = (route: { path: string }): string => route.path.split('/')[4] ?? 'account';
