import * as z from 'zod/mini';
import { nonBlank, resourceDocument, updateDocument } from '../../http/body.ts';
import { metadataSchema } from '../rules.ts';

const name = z.nullish(z.string());
const metadata = metadataSchema();

export const createUserBody = resourceDocument('users', {
  email: nonBlank(),
  firstName: name,
  lastName: name,
  password: z.optional(z.string()),
  role: z.optional(z.string()),
  metadata: z.optional(metadata),
});

export const updateUserBody = updateDocument('users', {
  email: z.optional(nonBlank()),
  firstName: name,
  lastName: name,
  password: z.optional(z.string()),
  role: z.optional(z.string()),
  metadata: z.optional(metadata),
});
