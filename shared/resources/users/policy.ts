/**
 * Users: administrators manage the users within their reach; a user sees and edits their own
 * name, nothing else, and no one else. An administrator never deletes or bans themselves.
 * A role, or the credentials to act in one (a password, an e-mail a reset can be sent to), grants
 * that role's permissions: only a credential holding all of them gives it (`carries`).
 */
import { heldBy } from '../../auth/held.ts';
import {
  administratorsOnly,
  type Carried,
  definePolicy,
  isAdministrator,
  isSelf,
  tokenGrant,
  type Verdict,
} from '../../auth/policies/policy.ts';
import type { Account } from '../accounts/entity.ts';
import { isManaged, ROLES, type UserRecord } from './entity.ts';

/** The permissions a user of `role` living in `home` holds; nothing for a role that is no role (the model's 422). */
function roleCarries(role: unknown, home: string | null, what: string): Carried[] {
  if (!(ROLES as readonly unknown[]).includes(role)) return [];
  return [{ what, permissions: heldBy(role === 'admin' ? 'admin' : 'user', home) }];
}

/** What users may change of themselves. */
export const SELF_EDITABLE = ['firstName', 'lastName'] as const;

/** A user's second factor (shared/resources/second-factors/): the user's own, and administrators'. */
const SECOND_FACTORS = {
  'second-factors.read': 'user.second-factors.read',
  'second-factors.create': 'user.second-factors.create',
  'second-factors.update': 'user.second-factors.update',
  'second-factors.delete': 'user.second-factors.delete',
} as const;

export const userPolicy = definePolicy({
  permissions: {
    create: 'user.create',
    list: 'user.read',
    read: 'user.read',
    update: 'user.update',
    delete: 'user.delete',
    ban: 'user.ban',
    unban: 'user.ban',
    'password.update': 'user.password.update',
    'tokens.generate': 'user.tokens.generate',
    ...SECOND_FACTORS,
  },
  // A user reads and edits themselves (the rule below narrows what they change), and keeps their own second factor.
  grants: { user: ['user.read', 'user.update', 'user.password.update', ...Object.values(SECOND_FACTORS)] },
  writes: new Set([
    'update',
    'delete',
    'ban',
    'unban',
    'password.update',
    'tokens.generate',
    'second-factors.create',
    'second-factors.update',
    'second-factors.delete',
  ]),
  reaches: (actor, record) => isAdministrator(actor.bearer) || isSelf(actor.bearer, record),
  // A license or machine a product creates may name any user the scope shows as its owner.
  relatable: (actor, record) => isAdministrator(actor.bearer) || actor.bearer.kind === 'product' || isSelf(actor.bearer, record),
  may(actor, action, record, context) {
    switch (action) {
      case 'create':
      case 'list':
        return administratorsOnly(actor, `${action} users`);
      case 'tokens.generate':
        if (record?.status === 'BANNED') return 'The user is banned: a banned user holds no tokens';
        return administratorsOnly(actor, 'generate tokens for users');
      case 'delete':
      case 'ban':
      case 'unban':
        if (!isAdministrator(actor.bearer)) return `Only administrators may ${action} users`;
        return !(record && isSelf(actor.bearer, record)) || `You cannot ${action} yourself`;
      case 'password.update':
        // As Keygen: a user changes their own password this way, given the one it replaces; an
        // administrator sets another user's with a PATCH.
        return (
          (record !== undefined && isSelf(actor.bearer, record)) ||
          'Only the user may update their own password (administrators: PATCH the user)'
        );
      case 'update': {
        if (isAdministrator(actor.bearer)) return true;
        const others = Object.keys(context.changes ?? {}).filter((name) => !(SELF_EDITABLE as readonly string[]).includes(name));
        return others.length === 0 || `A user may change only their own ${SELF_EDITABLE.join(' and ')}`;
      }
      default:
        return true;
    }
  },
  carries(actor, action, record, context) {
    // A token of the user's: what it gives is the user's (narrowed by the permissions asked).
    if (action === 'tokens.generate') return tokenGrant(actor, action, record, context);
    const { changes = {} } = context;
    if (action === 'create') {
      const role = changes.role ?? 'user';
      return roleCarries(role, actor.scope.environmentId, `A user with the role ${role}`);
    }
    const home = record?.environmentId ?? null;
    // A new password is a credential of the user's role: a narrowed token may not give itself the whole role.
    if (action === 'password.update' && record)
      return roleCarries(record.role, home, `Setting the credentials of a user with the role ${record.role}`);
    if (action !== 'update' || !record) return [];
    return [
      ...(changes.role !== undefined ? roleCarries(changes.role, home, `The role ${changes.role}`) : []),
      ...(changes.password !== undefined || changes.email !== undefined
        ? roleCarries(record.role, home, `Setting the credentials of a user with the role ${record.role}`)
        : []),
    ];
  },
});

/**
 * Whether a password reset (a credential of its own: the reset token) may set this user's
 * password. In a protected account a managed user (one without a password yet) cannot set an
 * initial password: an administrator sets a temporary one, or makes the account unprotected.
 */
export function passwordResettable(account: Account, user: UserRecord): Verdict {
  return (
    !(account.protected && isManaged(user) && user.role === 'user') ||
    'In a protected account a managed user cannot set an initial password: an admin can set a temporary one, or make the account unprotected'
  );
}
