/** Tokens: administrators see, regenerate and revoke every token within reach; every other bearer its own. */

import type { Bearer } from '../../auth/bearer.ts';
import { effectivePermissions } from '../../auth/held.ts';
import { definePolicy, isAdministrator } from '../../auth/policies/policy.ts';
import type { Item } from '../../store/records.ts';
import { BEARER_KIND_OF, type TokenRecord } from './entity.ts';

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
  // A regenerated token is a new credential with everything the token carries: only a credential
  // holding all of that may have it (no narrowed token takes over a wider one).
  carries(_actor, action, record) {
    if (action !== 'regenerate' || !record) return [];
    const token = record as unknown as TokenRecord;
    const home = token.environmentId ?? null;
    return [{ what: 'The token', permissions: [...effectivePermissions(BEARER_KIND_OF[token.kind], home, token.permissions)] }];
  },
  restrict: (actor): Record<string, string> =>
    isAdministrator(actor.bearer) ? {} : { bearerType: actor.bearer.type, bearerId: actor.bearer.id },
});
