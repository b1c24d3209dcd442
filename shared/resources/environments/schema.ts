/** An environment's resource object in the description, as environmentDocument (document.ts) shows it. */
import * as z from 'zod/mini';
import { account, every, resource, type SchemasOf } from '../../reference/objects.ts';
import type { IsolationStrategy } from './entity.ts';

export const schemas: SchemasOf<'environments'> = {
  environments: resource(
    'Environment',
    'environments',
    { name: z.string(), code: z.string(), isolationStrategy: every<IsolationStrategy>()(['ISOLATED', 'SHARED']) },
    { account },
  ),
};
