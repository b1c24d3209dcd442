/**
 * Environments: managed by the account's own admins alone. A token for an environment is made
 * from inside it: the request names the environment (docs/rules.md §15.2); its tokens are listed
 * from inside it or from the global environment, never from another one.
 */
import { definePolicy, isAccountAdmin, tokenGrant } from '../../auth/policies/policy.ts';

export const environmentPolicy = definePolicy({
  permissions: {
    create: 'environment.create',
    list: 'environment.read',
    read: 'environment.read',
    update: 'environment.update',
    delete: 'environment.delete',
    'tokens.generate': 'environment.tokens.generate',
    'tokens.list': 'environment.read',
  },
  writes: new Set(['update', 'delete', 'tokens.generate']),
  accountLevel: true,
  reaches: () => true,
  may(actor, action, record) {
    if (!isAccountAdmin(actor.bearer)) return 'Only administrators of the account may manage environments';
    if (action === 'tokens.generate' && record && actor.scope.environmentId !== record.id) {
      return 'An environment token must be generated from inside its environment (Service-Environment header)';
    }
    // From a third environment, the tokens' links (which name their environment in the query)
    // could not be followed: the request's header would win over it.
    if (action === 'tokens.list' && record && actor.scope.environmentId !== null && actor.scope.environmentId !== record.id) {
      return "An environment's tokens are listed from the global environment or from inside it";
    }
    return true;
  },
  carries: tokenGrant,
});
