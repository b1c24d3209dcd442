/** The account: read and changed by its own admins only (not by admins living inside an environment). */
import { isAccountAdmin, type Policy } from '../../auth/policies/policy.ts';

export const accountPolicy: Policy = {
  permissions: { read: 'account.read', update: 'account.update' },
  writes: new Set(['update']),
  accountLevel: true,
  reaches: () => true,
  may: (actor) => isAccountAdmin(actor.bearer) || 'Only administrators of the account may manage the account',
};
