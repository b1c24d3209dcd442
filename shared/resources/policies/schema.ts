/** A policy's resource object in the description, as policyDocument (document.ts) shows it. */
import * as z from 'zod/mini';
import { account, environment, KeyScheme, Metadata, nested, resource, type SchemasOf, toOne } from '../../reference/objects.ts';
import { CHECK_IN_INTERVALS } from './check-in.ts';
import {
  AUTHENTICATION_STRATEGIES,
  EXPIRATION_BASES,
  EXPIRATION_STRATEGIES,
  MACHINE_UNIQUENESS_STRATEGIES,
  MATCHING_STRATEGIES,
  RENEWAL_BASES,
  TRANSFER_STRATEGIES,
  UNIQUENESS_STRATEGIES,
} from './entity.ts';
import { HEARTBEAT_BASES, HEARTBEAT_CULL_STRATEGIES, HEARTBEAT_RESURRECTION_STRATEGIES } from './heartbeat.ts';
import { OVERAGE_STRATEGIES, PROCESS_LEASING_STRATEGIES } from './limits.ts';

export const schemas: SchemasOf<'policies'> = {
  policies: resource(
    'Policy',
    'policies',
    {
      name: z.string(),
      componentUniquenessStrategy: z.enum(UNIQUENESS_STRATEGIES),
      componentMatchingStrategy: z.enum(MATCHING_STRATEGIES),
      machineUniquenessStrategy: z.enum(MACHINE_UNIQUENESS_STRATEGIES),
      requireComponentsScope: z.boolean(),
      protected: z.boolean(),
      maxMachines: z.nullable(z.int()),
      scheme: KeyScheme,
      usePool: z
        .boolean()
        .check(z.describe("Its licenses take their keys from the policy's pool (docs/rules.md §18.9); set at creation only")),
      duration: z.nullable(z.int().check(z.describe('Seconds a license lasts; null: perpetual'))),
      expirationStrategy: z.enum(EXPIRATION_STRATEGIES),
      expirationBasis: z.enum(EXPIRATION_BASES),
      renewalBasis: z.enum(RENEWAL_BASES),
      floating: z.boolean(),
      strict: z.boolean(),
      maxCores: z.nullable(z.int()),
      maxProcesses: z.nullable(z.int()),
      overageStrategy: z.enum(OVERAGE_STRATEGIES),
      processLeasingStrategy: z.enum(PROCESS_LEASING_STRATEGIES),
      requireHeartbeat: z.boolean(),
      heartbeatDuration: z.nullable(z.int().check(z.describe('Seconds; null: 600'))),
      heartbeatCullStrategy: z.enum(HEARTBEAT_CULL_STRATEGIES),
      heartbeatResurrectionStrategy: z.enum(HEARTBEAT_RESURRECTION_STRATEGIES),
      heartbeatBasis: z.enum(HEARTBEAT_BASES),
      maxUses: z.nullable(z.int().check(z.describe('The uses a license may count; null: unlimited'))),
      maxUsers: z.nullable(z.int().check(z.describe('The users a license may have, its owner included; null: unlimited'))),
      authenticationStrategy: z.enum(AUTHENTICATION_STRATEGIES),
      transferStrategy: z.enum(TRANSFER_STRATEGIES),
      requireCheckIn: z.boolean(),
      checkInInterval: z.nullable(z.enum(CHECK_IN_INTERVALS)),
      checkInIntervalCount: z.nullable(z.int()),
      metadata: Metadata,
    },
    { account, environment, product: toOne('products'), entitlements: nested, pool: nested },
  ),
};
