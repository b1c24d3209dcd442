/**
 * Ajv's JSON Schema 2020-12 validators over the API's description (shared/reference/openapi.ts): the
 * schema at a place in the document, its `$ref`s resolved within the document. Strict mode is on,
 * so a schema with an unknown keyword or format fails to compile.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import type { OpenApiDocument } from '#shared/reference/openapi.ts';

const DESCRIPTION_ID = 'openapi.json';

/** A function of a place in the document (its path, one segment per member) to the validator of the schema there. */
export function schemaValidators(document: OpenApiDocument): (at: readonly string[]) => ValidateFunction {
  const ajv = new Ajv2020({ allErrors: true });
  // CommonJS: the plugin is the module itself, and its `default` too.
  ajvFormats.default(ajv);
  // The document's own members are no keywords of JSON Schema: named, so strict mode stays on for its schemas.
  ajv.addVocabulary(Object.keys(document));
  ajv.addSchema(document, DESCRIPTION_ID);
  const validators = new Map<string, ValidateFunction>();
  return (at) => {
    const pointer = at.map((segment) => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
    let validate = validators.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DESCRIPTION_ID}#/${pointer}` });
      validators.set(pointer, validate);
    }
    return validate;
  };
}
