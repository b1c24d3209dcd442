import * as z from 'zod';
import { nonBlank, resourceDocument, updateDocument } from '../../http/body.ts';

const name = z.string().nullable().optional();
const metadata = z.record(z.string(), z.unknown());

export const createUserBody = resourceDocument('users', {
  email: nonBlank(),
  firstName: name,
  lastName: name,
  password: z.string().optional(),
  role: z.string().optional(),
  metadata: metadata.optional(),
});

export const updateUserBody = updateDocument('users', {
  email: nonBlank().optional(),
  firstName: name,
  lastName: name,
  password: z.string().optional(),
  role: z.string().optional(),
  metadata: metadata.optional(),
});

/** What a user may change of themselves; anything else in their PATCH is refused with 403. */
export const SELF_EDITABLE = ['firstName', 'lastName'] as const;
