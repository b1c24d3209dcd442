import { accountRelationship, nested, nestedOne, type ResourceObject, resourcePath, toOne } from '../../jsonapi.ts';
import { type LicenseRecord, licenseStatus } from './entity.ts';

export function licenseDocument(license: LicenseRecord): ResourceObject {
  const self = resourcePath(license.accountId, 'licenses', license.id);
  return {
    id: license.id,
    type: 'licenses',
    attributes: {
      key: license.key,
      scheme: license.scheme ?? null,
      name: license.name ?? null,
      status: licenseStatus(license),
      suspended: license.suspended,
      protected: license.protected,
      expiry: license.expiry ?? null,
      lastCheckOut: license.lastCheckOut ?? null,
      metadata: license.metadata,
      created: license.created,
      updated: license.updated,
    },
    relationships: {
      account: accountRelationship(license.accountId),
      environment: toOne(license.accountId, 'environments', license.environmentId),
      product: nestedOne(self, 'product', 'products', license.productId),
      policy: nestedOne(self, 'policy', 'policies', license.policyId),
      owner: nestedOne(self, 'owner', 'users', license.ownerId),
      machines: nested(self, 'machines'),
      entitlements: nested(self, 'entitlements'),
    },
    links: { self },
  };
}
