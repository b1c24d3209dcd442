/**
 * Writes the generated documents: the API's OpenAPI description (docs/openapi.json, from the
 * route table and the declarations), the reference page rendered from it
 * (shared/reference/rendered-page.json, what GET /v1/docs serves) and docs/data-model.md's generated parts (from the access
 * patterns, marker kinds and key prefixes the code declares). Tests fail while either is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { DATA_MODEL_DOCUMENT, renderDataModel } from '../dev/data-model.ts';
import { RENDERED_PAGE, renderedPage } from '../dev/rendered-page.ts';
import { buildOpenApi, serializeOpenApi } from '../shared/reference/openapi.ts';

const description = await buildOpenApi();
const openapi = new URL('../docs/openapi.json', import.meta.url);
writeFileSync(openapi, serializeOpenApi(description));
console.log(`wrote ${openapi.pathname}`);

writeFileSync(RENDERED_PAGE, renderedPage(description));
console.log(`wrote ${RENDERED_PAGE.pathname}`);

writeFileSync(DATA_MODEL_DOCUMENT, await renderDataModel(readFileSync(DATA_MODEL_DOCUMENT, 'utf8')));
console.log(`wrote ${DATA_MODEL_DOCUMENT}`);
