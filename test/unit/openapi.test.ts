import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { referencePage } from '#dev/rendered-page.ts';
import { buildOpenApi, serializeOpenApi } from '#shared/reference/openapi.ts';
import { servedPage } from '#shared/reference/rendered-page.ts';
import { routes } from '#shared/routes.ts';
import { schemaValidators } from '../support/openapi-ajv.ts';

/** Where the document holds schemas: every `schema` member, and each of components.schemas. */
function schemaPlaces(value: unknown, at: string[] = []): string[][] {
  if (value === null || typeof value !== 'object') return [];
  if (at.length === 2 && at[0] === 'components' && at[1] === 'schemas') return Object.keys(value).map((name) => [...at, name]);
  return Object.entries(value).flatMap(([key, member]) => (key === 'schema' ? [[...at, key]] : schemaPlaces(member, [...at, key])));
}

const pathParameters = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!).filter((name) => name !== 'account');

describe('the OpenAPI description', () => {
  it('docs/openapi.json is the one the route table and the declarations generate', async () => {
    const committed = readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
    expect(committed, 'docs/openapi.json is out of date: run `npm run docs`').toBe(serializeOpenApi(await buildOpenApi()));
  });

  it('the reference page GET /v1/docs serves is the one rendered from docs/openapi.json', () => {
    const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    expect(servedPage() === referencePage(committed), 'the rendered page is out of date: run `npm run docs`').toBe(true);
  });

  it('names every operation once, and declares the path parameters of its path', () => {
    expect(new Set(routes.map((route) => route.operation)).size).toBe(routes.length);
    for (const route of routes) {
      expect([...route.params].sort(), `path parameters of ${route.operation}`).toEqual(pathParameters(route.path).sort());
    }
  });

  it('is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(structuredClone(await buildOpenApi()) as unknown as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('holds schemas that compile as JSON Schema 2020-12 in strict mode', async () => {
    const document = await buildOpenApi();
    const validator = schemaValidators(document);
    const places = schemaPlaces(document);
    expect(places.length).toBeGreaterThan(0);
    for (const at of places) expect(() => validator(at), at.join('/')).not.toThrow();
  });
});
