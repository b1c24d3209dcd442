/** The users' operations: what each reads of a request, and what it answers. */
import * as z from 'zod/mini';
import { metaDocument, nonBlank, resourceDocument, updateDocument } from '../../http/body.ts';
import { declare } from '../../http/declaration.ts';
import { metadataSchema } from '../rules.ts';

const name = z.nullish(z.string());
const metadata = metadataSchema();

export const users = {
  create: declare({
    operation: 'users.create',
    summary: 'Create a user',
    auth: 'bearer',
    body: resourceDocument('users', {
      email: nonBlank(),
      firstName: name,
      lastName: name,
      password: z.optional(z.string()),
      role: z.optional(z.string()),
      metadata: z.optional(metadata),
    }),
    answers: { 201: { resource: 'users' } },
    faults: [403, 422],
  }),
  list: declare({
    operation: 'users.list',
    summary: 'List users',
    auth: 'bearer',
    paged: true,
    answers: { 200: { list: 'users' } },
    faults: [403],
  }),
  retrieve: declare({
    operation: 'users.retrieve',
    summary: 'Retrieve a user',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'users' } },
    faults: [403],
  }),
  update: declare({
    operation: 'users.update',
    summary: 'Update a user',
    auth: 'bearer',
    params: ['id'],
    body: updateDocument('users', {
      email: z.optional(nonBlank()),
      firstName: name,
      lastName: name,
      password: z.optional(z.string()),
      role: z.optional(z.string()),
      metadata: z.optional(metadata),
    }),
    answers: { 200: { resource: 'users' } },
    faults: [403, 409, 422],
  }),
  delete: declare({
    operation: 'users.delete',
    summary: 'Delete a user and their tokens',
    auth: 'bearer',
    params: ['id'],
    answers: { 204: { empty: true } },
    // 409: a token was generated for the user while theirs were being revoked.
    faults: [403, 409],
  }),
  ban: declare({
    operation: 'users.ban',
    summary: 'Ban a user, revoking their tokens',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'users' } },
    faults: [403, 409],
  }),
  unban: declare({
    operation: 'users.unban',
    summary: 'Lift a ban',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'users' } },
    faults: [403],
  }),
  resetPassword: declare({
    operation: 'users.resetPassword',
    summary: 'Set a new password with a password-reset token',
    // The reset token in the body is the credential.
    auth: 'none',
    params: ['id'],
    body: metaDocument({ passwordResetToken: z.string(), newPassword: z.string() }),
    answers: { 200: { resource: 'users' } },
    faults: [401, 403, 409, 422],
  }),
  tokens: declare({
    operation: 'users.tokens',
    summary: "List a user's tokens",
    auth: 'bearer',
    params: ['id'],
    paged: true,
    answers: { 200: { list: 'tokens' } },
    faults: [403],
  }),
};
