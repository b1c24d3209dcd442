import { accountRelationship, type ResourceObject, resourcePath, toOne } from '../../jsonapi.ts';
import type { ProductRecord } from './entity.ts';

export function productDocument(product: ProductRecord): ResourceObject {
  return {
    id: product.id,
    type: 'products',
    attributes: {
      name: product.name,
      url: product.url ?? null,
      metadata: product.metadata,
      created: product.created,
      updated: product.updated,
    },
    relationships: {
      account: accountRelationship(product.accountId),
      environment: toOne(product.accountId, 'environments', product.environmentId),
    },
    links: { self: resourcePath(product.accountId, 'products', product.id) },
  };
}
