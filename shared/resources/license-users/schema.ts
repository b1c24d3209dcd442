/** A license's attachment of a user in the description, as license-users/document.ts shows it: no path of its own (its link is the license's users). */
import * as z from 'zod/mini';
import { account, environment, Id, Related, type SchemasOf, Timestamp, toOne } from '../../reference/objects.ts';

export const schemas: SchemasOf<'license-users'> = {
  'license-users': {
    name: 'LicenseUser',
    schema: z.strictObject({
      id: Id,
      type: z.literal('license-users'),
      attributes: z.strictObject({ created: Timestamp, updated: Timestamp }),
      relationships: z.strictObject({ account, environment, license: toOne('licenses'), user: toOne('users') }),
      links: Related,
    }),
  },
};
