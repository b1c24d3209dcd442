/** The account: read and changed by its own admins only (not by admins living inside an environment). */
import { definePolicy, isAccountAdmin } from '../../auth/policies/policy.ts';

export const accountPolicy = definePolicy({
  permissions: { read: 'account.read', update: 'account.update' },
  writes: new Set(['update']),
  accountLevel: true,
  reaches: () => true,
  may: (actor) => isAccountAdmin(actor.bearer) || 'Only administrators of the account may manage the account',
});
