import { accountRelationship, nestedOne, type ResourceObject, resourcePath, toOne } from '../../jsonapi.ts';
import type { ComponentRecord } from './entity.ts';

export function componentDocument(component: ComponentRecord): ResourceObject {
  const self = resourcePath(component.accountId, 'components', component.id);
  return {
    id: component.id,
    type: 'components',
    attributes: {
      fingerprint: component.fingerprint,
      name: component.name,
      metadata: component.metadata,
      created: component.created,
      updated: component.updated,
    },
    relationships: {
      account: accountRelationship(component.accountId),
      environment: toOne(component.accountId, 'environments', component.environmentId),
      product: nestedOne(self, 'product', 'products', component.productId),
      license: nestedOne(self, 'license', 'licenses', component.licenseId),
      machine: nestedOne(self, 'machine', 'machines', component.machineId),
    },
    links: { self },
  };
}
