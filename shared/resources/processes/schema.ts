/** A process's resource object in the description, as processDocument (document.ts) shows it. */
import * as z from 'zod/mini';
import { account, environment, Metadata, nestedOne, resource, type SchemasOf, Timestamp } from '../../reference/objects.ts';
import { PROCESS_STATUSES } from './entity.ts';

export const schemas: SchemasOf<'processes'> = {
  processes: resource(
    'Process',
    'processes',
    {
      pid: z.string(),
      status: z.enum(PROCESS_STATUSES).check(z.describe('ALIVE up to nextHeartbeat, DEAD after (the sweeper then removes it)')),
      interval: z.int().check(z.describe("Seconds a ping keeps the process alive: the policy's heartbeatDuration")),
      lastHeartbeat: Timestamp,
      nextHeartbeat: Timestamp,
      metadata: Metadata,
    },
    { account, environment, product: nestedOne('products'), license: nestedOne('licenses'), machine: nestedOne('machines') },
  ),
};
