/** The account's resource object in the description, as accountDocument (document.ts) shows it. */
import * as z from 'zod/mini';
import { resource, type SchemasOf } from '../../reference/objects.ts';

export const schemas: SchemasOf<'accounts'> = {
  accounts: resource(
    'Account',
    'accounts',
    { slug: z.string(), name: z.string(), protected: z.boolean() },
    {},
    z.optional(
      z.strictObject({
        keys: z.strictObject({
          ed25519: z
            .string()
            .check(z.describe("The Ed25519 public key answers and files are signed with: base64 of the key's 64 hex digits")),
        }),
      }),
    ),
  ),
};
