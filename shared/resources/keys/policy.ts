/**
 * Keys of the policies' pools (docs/rules.md §18.9): administrators' and their product's, as
 * Keygen's key policy has it; licensees never see a pool (a pooled key is a license's key to be).
 */
import { CHANGES, reachedBy } from '../../auth/policies/graph.ts';
import { definePolicy } from '../../auth/policies/policy.ts';

export const keyPolicy = definePolicy({
  permissions: { create: 'key.create', list: 'key.read', read: 'key.read', update: 'key.update', delete: 'key.delete' },
  grants: { product: '*' },
  writes: CHANGES,
  reaches: reachedBy({
    product: (bearer, record) => record.productId === bearer.id,
    license: () => false,
    user: () => false,
  }),
  restrict: (actor): Record<string, string> => (actor.bearer.kind === 'product' ? { productId: actor.bearer.id } : {}),
});
