/** The resource objects of entitlements and their attachments in the description, as entitlements/document.ts shows them. */
import * as z from 'zod/mini';
import {
  account,
  environment,
  Id,
  Metadata,
  Related,
  type ResourceObject,
  resource,
  type SchemasOf,
  Timestamp,
  toOne,
} from '../../reference/objects.ts';

/**
 * An entitlement attached to a policy or a license: no attributes but its times, and no path of
 * its own (its link is the holder's entitlements).
 */
function attachment<T extends 'policy-entitlements' | 'license-entitlements', H extends 'policies' | 'licenses'>(
  name: string,
  type: T,
  holder: string,
  holderType: H,
): ResourceObject {
  return {
    name,
    schema: z.strictObject({
      id: Id,
      type: z.literal(type),
      attributes: z.strictObject({ created: Timestamp, updated: Timestamp }),
      relationships: z.strictObject({ account, environment, entitlement: toOne('entitlements'), [holder]: toOne(holderType) }),
      links: Related,
    }),
  };
}

export const schemas: SchemasOf<'entitlements'> = {
  entitlements: resource(
    'Entitlement',
    'entitlements',
    { name: z.string(), code: z.string(), metadata: Metadata },
    { account, environment },
  ),
  'policy-entitlements': attachment('PolicyEntitlement', 'policy-entitlements', 'policy', 'policies'),
  'license-entitlements': attachment('LicenseEntitlement', 'license-entitlements', 'license', 'licenses'),
};
