/** The license and machine files' resource objects in the description, as check-out/document.ts shows them. */
import * as z from 'zod/mini';
import { account, environment, Id, linked, type ResourceObject, type SchemasOf, Timestamp } from '../../reference/objects.ts';
import { CHECK_OUT_ALGORITHMS } from './certificate.ts';

/**
 * A license or machine file (shared/resources/check-out/): made by a check-out and kept nowhere, so
 * it has no `links` to read it back by, nor `created` and `updated`.
 */
function checkOutFile<T extends 'license-files' | 'machine-files'>(
  name: string,
  type: T,
  relationships: z.core.$ZodLooseShape,
): ResourceObject {
  return {
    name,
    schema: z.strictObject({
      id: Id.check(z.describe('New for every check-out')),
      type: z.literal(type),
      attributes: z.strictObject({
        certificate: z
          .string()
          .check(z.describe('The armoured file: `-----BEGIN ... FILE-----`, base64 of {enc, sig, alg} in lines of 60 (docs/rules.md §20)')),
        algorithm: z.enum(CHECK_OUT_ALGORITHMS),
        includes: z.array(z.string()),
        ttl: z.nullable(z.int()).check(z.describe('Seconds from issued to expiry; null: the file never expires')),
        issued: Timestamp,
        expiry: z.nullable(Timestamp),
      }),
      relationships: z.strictObject({ account, environment, ...relationships }),
    }),
  };
}

export const schemas: SchemasOf<'check-out'> = {
  'license-files': checkOutFile('LicenseFile', 'license-files', { license: linked('licenses') }),
  'machine-files': checkOutFile('MachineFile', 'machine-files', { license: linked('licenses'), machine: linked('machines') }),
};
