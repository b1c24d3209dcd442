/** A user's resource object in the description, as userDocument (document.ts) shows it. */
import * as z from 'zod/mini';
import { account, environment, every, Metadata, nested, resource, type SchemasOf } from '../../reference/objects.ts';
import type { UserRole, UserStatus } from './entity.ts';

export const schemas: SchemasOf<'users'> = {
  users: resource(
    'User',
    'users',
    {
      fullName: z.nullable(z.string()),
      firstName: z.nullable(z.string()),
      lastName: z.nullable(z.string()),
      email: z.string(),
      status: every<UserStatus>()(['ACTIVE', 'BANNED']),
      role: every<UserRole>()(['user', 'admin']),
      metadata: Metadata,
    },
    { account, environment, products: nested, licenses: nested, machines: nested, tokens: nested },
  ),
};
