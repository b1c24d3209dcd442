/** Products: the root of the licensing graph (shared/auth/policies/graph.ts). */
import { CHANGES, crud, productOfLicense, reachedBy } from '../../auth/policies/graph.ts';
import { administratorsOnly, definePolicy, tokenGrant } from '../../auth/policies/policy.ts';

export const productPolicy = definePolicy({
  permissions: { ...crud('product'), 'tokens.generate': 'product.tokens.generate' },
  // A product bearer reads and changes itself, but neither makes products nor removes them.
  grants: { licensee: ['product.read'], product: ['product.read', 'product.update'] },
  writes: new Set([...CHANGES, 'tokens.generate']),
  reaches: reachedBy({
    product: (bearer, record) => record.id === bearer.id,
    license: (bearer, record) => record.id === bearer.productId,
    user: (_bearer, record, actor) => actor.holdsLicense({ productId: record.id }),
  }),
  may(actor, action) {
    if (['create', 'delete', 'tokens.generate'].includes(action)) {
      return administratorsOnly(actor, action === 'tokens.generate' ? 'generate product tokens' : `${action} products`);
    }
    return true;
  },
  restrict(actor): Record<string, string> {
    const { bearer } = actor;
    if (bearer.kind === 'product') return { id: bearer.id };
    if (bearer.kind === 'license') return { id: productOfLicense(bearer) };
    // A user's products are those of the licenses they own (products/service.ts reads them so).
    if (bearer.kind === 'user') return { licenseOwnerId: bearer.id };
    return {};
  },
  carries: tokenGrant,
});
