/** A token's resource object in the description, as tokenDocument (document.ts) shows it. */
import * as z from 'zod/mini';
import { account, environment, every, Id, Related, resource, type SchemasOf, Timestamp } from '../../reference/objects.ts';
import type { TokenKind } from './entity.ts';

export const schemas: SchemasOf<'tokens'> = {
  tokens: resource(
    'Token',
    'tokens',
    {
      kind: every<TokenKind>()(['admin-token', 'user-token', 'environment-token', 'product-token', 'activation-token']),
      token: z.optional(z.string().check(z.describe('The token value: only in the answer that generates the token'))),
      name: z.nullable(z.string()),
      expiry: z.nullable(Timestamp),
      permissions: z.array(z.string()),
    },
    {
      account,
      // Who holds the token: a user (admin and user tokens), an environment, a product or a license.
      bearer: z.strictObject({
        links: Related,
        data: z.strictObject({ type: z.enum(['users', 'environments', 'products', 'licenses']), id: Id }),
      }),
      environment,
    },
  ),
};
