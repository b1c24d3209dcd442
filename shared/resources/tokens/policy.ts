/** Tokens: administrators see, regenerate and revoke every token within reach; every other bearer its own. */

import type { Bearer } from '../../auth/bearer.ts';
import { definePolicy, isAdministrator } from '../../auth/policies/policy.ts';
import type { Item } from '../../store/records.ts';

const ownedBy = (bearer: Bearer, token: Item) => token.bearerType === bearer.type && token.bearerId === bearer.id;

export const tokenPolicy = definePolicy({
  permissions: { list: 'token.read', read: 'token.read', regenerate: 'token.regenerate', revoke: 'token.revoke' },
  // Keygen's permission to generate tokens: logging in needs none, but a user's token carries it.
  carried: ['token.generate'],
  grants: {
    licensee: ['token.read', 'token.regenerate', 'token.revoke'],
    user: ['token.generate'],
    product: ['token.read', 'token.regenerate', 'token.revoke'],
  },
  writes: new Set(['regenerate', 'revoke']),
  reaches: (actor, record) => isAdministrator(actor.bearer) || ownedBy(actor.bearer, record),
  restrict: (actor): Record<string, string> =>
    isAdministrator(actor.bearer) ? {} : { bearerType: actor.bearer.type, bearerId: actor.bearer.id },
});
