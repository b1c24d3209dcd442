/** A license's resource object in the description, as licenseDocument (document.ts) shows it. */
import * as z from 'zod/mini';
import {
  account,
  environment,
  every,
  KeyScheme,
  LastCheckOut,
  Metadata,
  nested,
  nestedOne,
  resource,
  type SchemasOf,
  Timestamp,
} from '../../reference/objects.ts';
import type { LicenseStatus } from './entity.ts';

export const schemas: SchemasOf<'licenses'> = {
  licenses: resource(
    'License',
    'licenses',
    {
      key: z.nullable(
        z
          .string()
          .check(
            z.describe(
              'null for a reader who may not see the key (docs/rules.md §18.1); under ED25519_SIGN, `key/` + base64url(dataset) + `.` + base64url(Ed25519 signature of what precedes the dot), base64url with `=` padding',
            ),
          ),
      ),
      scheme: KeyScheme,
      name: z.nullable(z.string()),
      status: every<LicenseStatus>()(['ACTIVE', 'INACTIVE', 'EXPIRING', 'EXPIRED', 'SUSPENDED']).check(
        z.describe(
          'Derived: SUSPENDED, else EXPIRED, else EXPIRING (expiry within 3 days), else INACTIVE (made, validated, checked out and checked in, none within 90 days), else ACTIVE',
        ),
      ),
      suspended: z.boolean(),
      protected: z.boolean(),
      expiry: z.nullable(Timestamp),
      uses: z.int().check(z.describe('Uses counted by the usage actions (docs/rules.md §18.6)')),
      maxUses: z.nullable(z.int().check(z.describe("The license's own limit of uses, else its policy's; null: unlimited"))),
      maxUsers: z.nullable(
        z.int().check(z.describe("The license's own limit of users (its owner included), else its policy's; null: unlimited")),
      ),
      maxMachines: z.nullable(z.int().check(z.describe("The policy's, as it is now (docs/rules.md §18.7)"))),
      maxCores: z.nullable(z.int().check(z.describe("The policy's, as it is now"))),
      maxProcesses: z.nullable(z.int().check(z.describe("The policy's, as it is now"))),
      floating: z.boolean().check(z.describe("The policy's, as it is now")),
      strict: z.boolean().check(z.describe("The policy's, as it is now")),
      requireHeartbeat: z.boolean().check(z.describe("The policy's, as it is now")),
      requireCheckIn: z.boolean().check(z.describe("The policy's, as it is now (docs/rules.md §18.8)")),
      lastCheckIn: z.nullable(Timestamp.check(z.describe('When the license last checked in'))),
      nextCheckIn: z.nullable(Timestamp.check(z.describe('When it must check in again, under a policy that requires check-ins'))),
      lastCheckOut: LastCheckOut,
      lastValidated: z.nullable(
        Timestamp.check(z.describe('When a validation last judged the license (docs/rules.md §19.5); null before the first')),
      ),
      metadata: Metadata,
    },
    {
      account,
      environment,
      product: nestedOne('products'),
      policy: nestedOne('policies'),
      owner: nestedOne('users'),
      users: nested,
      machines: nested,
      entitlements: nested,
    },
  ),
};
