/** A component's resource object in the description, as componentDocument (document.ts) shows it. */
import * as z from 'zod/mini';
import { account, environment, Metadata, nestedOne, resource, type SchemasOf } from '../../reference/objects.ts';

export const schemas: SchemasOf<'components'> = {
  components: resource(
    'Component',
    'components',
    { fingerprint: z.string(), name: z.string(), metadata: Metadata },
    { account, environment, product: nestedOne('products'), license: nestedOne('licenses'), machine: nestedOne('machines') },
  ),
};
