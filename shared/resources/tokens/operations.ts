/** The tokens' operations, and the body every token generation shares. */

import * as z from 'zod/mini';
import { ACCOUNT, CREDENTIALS, EMIT, READ } from '../../access.ts';
import { MAX_PERMISSION_LENGTH, MAX_REQUESTED_PERMISSIONS } from '../../auth/permissions.ts';
import { resourceDocument } from '../../http/body.ts';
import { declare } from '../../http/declaration.ts';

/**
 * The optional body of `POST /environments|products|licenses/<id>/tokens`: a name, an expiry,
 * and permissions to narrow the token to.
 */
export const tokenRequestBody = z.optional(
  resourceDocument('tokens', {
    name: z.nullish(z.string()),
    expiry: z.nullish(z.string()),
    permissions: z.optional(z.array(z.string().check(z.maxLength(MAX_PERMISSION_LENGTH))).check(z.maxLength(MAX_REQUESTED_PERMISSIONS))),
  }),
);

export const tokens = {
  generate: declare({
    operation: 'tokens.generate',
    method: 'POST',
    path: `${ACCOUNT}/tokens`,
    // A second factor's secret is sealed at rest (shared/resources/second-factors/codes.ts).
    access: [...EMIT, 'key:unseal'],
    throttle: CREDENTIALS,
    summary: 'Log in: a user token for the e-mail and password of HTTP Basic',
    auth: 'basic',
    // Optional: a name, and an expiry sooner than the longest a user token lives; a code of the
    // user's second factor once one is enabled (docs/rules.md §13.2).
    body: z.optional(
      z.strictObject({
        data: z.optional(resourceDocument('tokens', { expiry: z.optional(z.string()), name: z.nullish(z.string()) }).shape.data),
        meta: z.optional(
          z.strictObject({ otp: z.optional(z.string().check(z.describe("A current code of the user's second factor, once enabled"))) }),
        ),
      }),
    ),
    limitPerAddress: true,
    answers: { 201: { resource: 'tokens' } },
    // 401 also OTP_REQUIRED, OTP_INVALID at /meta/otp.
    faults: [422],
  }),
  list: declare({
    operation: 'tokens.list',
    authorizes: { type: 'tokens', action: 'list' },
    method: 'GET',
    path: `${ACCOUNT}/tokens`,
    access: READ,
    summary: 'List tokens',
    auth: 'bearer',
    paged: true,
    answers: { 200: { list: 'tokens' } },
    faults: [403],
  }),
  retrieve: declare({
    operation: 'tokens.retrieve',
    authorizes: { type: 'tokens', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/tokens/{id}`,
    access: READ,
    summary: 'Retrieve a token',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'tokens' } },
    faults: [403],
  }),
  regenerate: declare({
    operation: 'tokens.regenerate',
    authorizes: { type: 'tokens', action: 'regenerate', record: true },
    method: 'PUT',
    path: `${ACCOUNT}/tokens/{id}`,
    access: EMIT,
    summary: 'Regenerate a token: a new value, shown once; the old one stops working',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'tokens' } },
    // 409: regenerated or revoked meanwhile.
    faults: [403, 409],
  }),
  revoke: declare({
    operation: 'tokens.revoke',
    authorizes: { type: 'tokens', action: 'revoke', record: true },
    method: 'DELETE',
    path: `${ACCOUNT}/tokens/{id}`,
    access: EMIT,
    summary: 'Revoke a token',
    auth: 'bearer',
    params: ['id'],
    answers: { 204: { empty: true } },
    faults: [403],
  }),
};
