/** Writes the API's OpenAPI description, generated from the route table and the declarations, to docs/openapi.json. */
import { writeFileSync } from 'node:fs';
import { buildOpenApi, serializeOpenApi } from '../shared/reference/openapi.ts';

const target = new URL('../docs/openapi.json', import.meta.url);
writeFileSync(target, serializeOpenApi(await buildOpenApi()));
console.log(`wrote ${target.pathname}`);
