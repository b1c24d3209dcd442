/**
 * Users: administrators manage the users within their reach; a user sees and edits their own
 * name, nothing else, and no one else. An administrator never deletes or bans themselves.
 * Which role a user may be given is the grants' rule (`authorizeGrant`, shared/auth/authorize.ts).
 */
import { administratorsOnly, definePolicy, isAdministrator, isSelf } from '../../auth/policies/policy.ts';

/** What users may change of themselves. */
export const SELF_EDITABLE = ['firstName', 'lastName'] as const;

export const userPolicy = definePolicy({
  permissions: {
    create: 'user.create',
    list: 'user.read',
    read: 'user.read',
    update: 'user.update',
    delete: 'user.delete',
    ban: 'user.ban',
    unban: 'user.ban',
  },
  // A user reads and edits themselves (the rule below narrows what they change).
  grants: { user: ['user.read', 'user.update'] },
  writes: new Set(['update', 'delete', 'ban', 'unban']),
  reaches: (actor, record) => isAdministrator(actor.bearer) || isSelf(actor.bearer, record),
  // A license or machine a product creates may name any user the scope shows as its owner.
  relatable: (actor, record) => isAdministrator(actor.bearer) || actor.bearer.kind === 'product' || isSelf(actor.bearer, record),
  may(actor, action, record, context) {
    switch (action) {
      case 'create':
      case 'list':
        return administratorsOnly(actor, `${action} users`);
      case 'delete':
      case 'ban':
      case 'unban':
        if (!isAdministrator(actor.bearer)) return `Only administrators may ${action} users`;
        return !(record && isSelf(actor.bearer, record)) || `You cannot ${action} yourself`;
      case 'update': {
        if (isAdministrator(actor.bearer)) return true;
        const others = (context.attributes ?? []).filter((name) => !(SELF_EDITABLE as readonly string[]).includes(name));
        return others.length === 0 || `A user may change only their own ${SELF_EDITABLE.join(' and ')}`;
      }
      default:
        return true;
    }
  },
});
