import { accountRelationship, type ResourceObject, resourcePath, toOne } from '../../jsonapi.ts';
import type { KeyRecord } from './entity.ts';

export function keyDocument(key: KeyRecord): ResourceObject {
  return {
    id: key.id,
    type: 'keys',
    attributes: { key: key.key, created: key.created, updated: key.updated },
    relationships: {
      account: accountRelationship(key.accountId),
      environment: toOne(key.accountId, 'environments', key.environmentId),
      product: toOne(key.accountId, 'products', key.productId),
      policy: toOne(key.accountId, 'policies', key.policyId),
    },
    links: { self: resourcePath(key.accountId, 'keys', key.id) },
  };
}
