/** Policies: a product's plans, read by the licensees of their licenses (shared/auth/policies/graph.ts). */
import { CHANGES, crud, reachedBy } from '../../auth/policies/graph.ts';
import { definePolicy } from '../../auth/policies/policy.ts';

export const policyPolicy = definePolicy({
  // Popping a key from its pool (shared/resources/keys/) changes the pool: administrators' and the product's.
  permissions: { ...crud('policy'), 'pool.pop': 'policy.pool.pop' },
  grants: { licensee: ['policy.read'], product: '*' },
  writes: new Set([...CHANGES, 'pool.pop']),
  reaches: reachedBy({
    product: (bearer, record) => record.productId === bearer.id,
    license: (bearer, record) => record.id === bearer.policyId,
    user: (_bearer, record, actor) => actor.holdsLicense({ policyId: record.id }),
  }),
  may(actor, action) {
    const { kind } = actor.bearer;
    if (action === 'list' && (kind === 'user' || kind === 'license')) return 'This bearer may read its policy by id only';
    return true;
  },
  restrict: (actor): Record<string, string> => (actor.bearer.kind === 'product' ? { productId: actor.bearer.id } : {}),
});
