/** A machine's resource object in the description, as machineDocument (document.ts) shows it. */
import * as z from 'zod/mini';
import {
  account,
  environment,
  LastCheckOut,
  Metadata,
  nested,
  nestedOne,
  resource,
  type SchemasOf,
  Timestamp,
  toOne,
} from '../../reference/objects.ts';
import { HEARTBEAT_STATUSES } from './heartbeat.ts';

export const schemas: SchemasOf<'machines'> = {
  machines: resource(
    'Machine',
    'machines',
    {
      fingerprint: z.string(),
      name: z.nullable(z.string()),
      hostname: z.nullable(z.string()),
      platform: z.nullable(z.string()),
      ip: z.nullable(z.string()),
      cores: z.nullable(z.int().check(z.gte(1), z.lte(2_147_483_647))),
      memory: z.nullable(z.int().check(z.gte(0), z.describe('Bytes'))),
      disk: z.nullable(z.int().check(z.gte(0), z.describe('Bytes'))),
      lastCheckOut: LastCheckOut,
      requireHeartbeat: z.boolean().check(z.describe("The policy's requireHeartbeat, or true once the machine has pinged")),
      heartbeatStatus: z.enum(HEARTBEAT_STATUSES),
      heartbeatDuration: z.int().check(z.describe('Seconds a ping keeps the machine alive')),
      lastHeartbeat: z.nullable(Timestamp),
      nextHeartbeat: z.nullable(Timestamp),
      metadata: Metadata,
    },
    { account, environment, product: toOne('products'), license: nestedOne('licenses'), owner: toOne('users'), components: nested },
  ),
};
