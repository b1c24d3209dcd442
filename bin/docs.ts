/**
 * Writes the generated documents: the API's OpenAPI description (docs/openapi.json, from the
 * route table and the declarations) and docs/data-model.md's generated parts (from the access
 * patterns, marker kinds and key prefixes the code declares). Tests fail while either is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { DATA_MODEL_DOCUMENT, renderDataModel } from '../dev/data-model.ts';
import { buildOpenApi, serializeOpenApi } from '../shared/reference/openapi.ts';

const openapi = new URL('../docs/openapi.json', import.meta.url);
writeFileSync(openapi, serializeOpenApi(await buildOpenApi()));
console.log(`wrote ${openapi.pathname}`);

writeFileSync(DATA_MODEL_DOCUMENT, await renderDataModel(readFileSync(DATA_MODEL_DOCUMENT, 'utf8')));
console.log(`wrote ${DATA_MODEL_DOCUMENT}`);
