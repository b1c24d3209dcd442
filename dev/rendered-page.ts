/**
 * The API reference page as GET /v1/docs serves it, rendered when the description is written
 * (`npm run docs`) rather than when a container starts. The page (about 2 MB of HTML, most of it
 * schemas repeated per operation) is kept Brotli-compressed in a JSON file, so that Node and the
 * bundler both import it as they import docs/openapi.json and a function's bundle stays small; a
 * test holds its content to the description.
 */
import { brotliCompressSync, constants } from 'node:zlib';
import { serializeOpenApi } from '../shared/reference/openapi.ts';
import type { OpenApiDescription } from '../shared/reference/reference-document.ts';
import { renderReference } from '../shared/reference/reference-page.ts';

export const RENDERED_PAGE = new URL('../shared/reference/rendered-page.json', import.meta.url);

/** The page for `description`, rendered from the description as docs/openapi.json holds it. */
export function referencePage(description: Parameters<typeof serializeOpenApi>[0]): string {
  const written = JSON.parse(serializeOpenApi(description)) as OpenApiDescription;
  return renderReference(written, { descriptionLink: 'openapi.json' });
}

/** The file's content for `description`: `{"brotli": <the page, compressed, in base64>}`. */
export function renderedPage(description: Parameters<typeof serializeOpenApi>[0]): string {
  const compressed = brotliCompressSync(referencePage(description), { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
  return `${JSON.stringify({ brotli: compressed.toString('base64') }, null, 2)}\n`;
}
