/** A pooled key's resource object in the description, as keyDocument (document.ts) shows it. */
import * as z from 'zod/mini';
import { account, environment, linked, resource, type SchemasOf } from '../../reference/objects.ts';

export const schemas: SchemasOf<'keys'> = {
  keys: resource(
    'Key',
    'keys',
    { key: z.string().check(z.describe('The license key it will be, 8 characters to 1 KB')) },
    { account, environment, product: linked('products'), policy: linked('policies') },
  ),
};
