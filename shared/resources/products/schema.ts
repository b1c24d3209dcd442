/** A product's resource object in the description, as productDocument (document.ts) shows it. */
import * as z from 'zod/mini';
import { account, environment, Metadata, resource, type SchemasOf } from '../../reference/objects.ts';

export const schemas: SchemasOf<'products'> = {
  products: resource(
    'Product',
    'products',
    { name: z.string(), url: z.nullable(z.string()), metadata: Metadata },
    { account, environment },
  ),
};
