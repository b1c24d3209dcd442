/** The tokens' operations, and the body every token generation shares. */
import * as z from 'zod/mini';
import { MAX_REQUESTED_PERMISSIONS } from '../auth/permissions.ts';
import { resourceDocument } from '../http/body.ts';

/**
 * The optional body of `POST /environments|products|licenses/<id>/tokens`: a name, an expiry,
 * and permissions to narrow the token to.
 */
export const tokenRequestBody = z.optional(
  resourceDocument('tokens', {
    name: z.nullish(z.string()),
    expiry: z.nullish(z.string()),
    permissions: z.optional(z.array(z.string()).check(z.maxLength(MAX_REQUESTED_PERMISSIONS))),
  }),
);
