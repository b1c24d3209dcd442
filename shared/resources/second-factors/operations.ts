/** The second factors' operations (docs/rules.md §13.2): under the user they belong to. */

import * as z from 'zod/mini';
import { ACCOUNT, EMIT, READ } from '../../access.ts';
import { declare } from '../../http/declaration.ts';

const PATH = `${ACCOUNT}/users/{id}/second-factors`;
const TYPE = z.literal('second-factors');
const otp = z.string().check(z.describe('A current code of the factor: 6 digits'));

export const secondFactors = {
  list: declare({
    operation: 'secondFactors.list',
    authorizes: { type: 'users', action: 'second-factors.read', record: true },
    method: 'GET',
    path: PATH,
    access: READ,
    summary: "List a user's second factors (at most one)",
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { collection: 'second-factors' } },
    faults: [403],
  }),
  create: declare({
    operation: 'secondFactors.create',
    authorizes: { type: 'users', action: 'second-factors.create', record: true },
    method: 'POST',
    path: PATH,
    // Its secret is sealed at rest (codes.ts).
    access: [...EMIT, 'key:seal'],
    summary: 'Add a second factor (TOTP), disabled until a code of it is verified; its otpauth:// URI is shown only here',
    auth: 'bearer',
    params: ['id'],
    body: z.strictObject({
      data: z.optional(z.strictObject({ type: TYPE })),
      meta: z.strictObject({ password: z.optional(z.string().check(z.describe("The user's password"))) }),
    }),
    answers: { 201: { resource: 'second-factors' } },
    // 401 PASSWORD_INVALID; 422 SECOND_FACTOR_TAKEN; 429: the log-in limit.
    faults: [401, 403, 422, 429],
  }),
  retrieve: declare({
    operation: 'secondFactors.retrieve',
    authorizes: { type: 'users', action: 'second-factors.read', record: true },
    method: 'GET',
    path: `${PATH}/{secondFactor}`,
    access: READ,
    summary: 'Retrieve a second factor',
    auth: 'bearer',
    params: ['id', 'secondFactor'],
    answers: { 200: { resource: 'second-factors' } },
    faults: [403],
  }),
  update: declare({
    operation: 'secondFactors.update',
    authorizes: { type: 'users', action: 'second-factors.update', record: true },
    method: 'PATCH',
    path: `${PATH}/{secondFactor}`,
    access: [...EMIT, 'key:unseal'],
    summary: 'Enable or disable a second factor, given a current code of it',
    auth: 'bearer',
    params: ['id', 'secondFactor'],
    body: z.strictObject({
      data: z.strictObject({ type: TYPE, id: z.optional(z.string()), attributes: z.strictObject({ enabled: z.boolean() }) }),
      meta: z.strictObject({ otp }),
    }),
    answers: { 200: { resource: 'second-factors' } },
    // 401 OTP_INVALID (a wrong code, or one spent); 409: the factor changed meanwhile; 429: the log-in limit.
    faults: [401, 403, 409, 429],
  }),
  remove: declare({
    operation: 'secondFactors.delete',
    authorizes: { type: 'users', action: 'second-factors.delete', record: true },
    method: 'DELETE',
    path: `${PATH}/{secondFactor}`,
    access: [...EMIT, 'key:unseal'],
    summary: 'Delete a second factor: an enabled one only given a current code of it',
    auth: 'bearer',
    params: ['id', 'secondFactor'],
    body: z.optional(z.strictObject({ meta: z.strictObject({ otp: z.optional(otp) }) })),
    answers: { 204: { empty: true } },
    // 401 OTP_REQUIRED, OTP_INVALID; 409: the factor changed meanwhile; 429: the log-in limit.
    faults: [401, 403, 409, 429],
  }),
};
