/** A second factor's resource object in the description, as secondFactorDocument (document.ts) shows it. */
import * as z from 'zod/mini';
import { account, environment, linked, resource, type SchemasOf } from '../../reference/objects.ts';

export const schemas: SchemasOf<'second-factors'> = {
  'second-factors': resource(
    'SecondFactor',
    'second-factors',
    {
      uri: z
        .nullable(z.string())
        .check(
          z.describe('The otpauth:// URI an authenticator app scans (TOTP, SHA-1, 6 digits, 30 s): only in the answer that creates it'),
        ),
      enabled: z.boolean().check(z.describe('Whether log-ins need a code of it: once a code was verified (PATCH)')),
    },
    { account, environment, user: linked('users') },
  ),
};
