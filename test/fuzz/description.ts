/**
 * What the fuzzer knows of each route, read from the API's description (docs/openapi.json) for
 * the routes of the route table (shared/routes.ts): its request body's schema, its query
 * parameters, whether it is a list, how it authenticates, and which of its answers are
 * documented as something other than a JSON:API document (a page, a file, no body).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Route, routes } from '#shared/routes.ts';

/** The subset of JSON Schema the description's request schemas use. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
}

interface Parameter {
  $ref?: string;
  name: string;
  in: 'path' | 'query' | 'header';
  schema: Schema;
}

interface ResponseObject {
  $ref?: string;
  content?: Record<string, unknown>;
}

interface Operation {
  operationId: string;
  security?: Record<string, unknown>[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, ResponseObject>;
}

interface Description {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; parameters: Record<string, Parameter>; responses: Record<string, ResponseObject> };
}

export const JSON_API = 'application/vnd.api+json';

export interface RouteInfo {
  route: Route;
  /** The collection the path's `{id}` names (`users`, `webhook-events`...); undefined when it has none. */
  resource: string | undefined;
  body: Schema | undefined;
  bodyRequired: boolean;
  /** Query parameters of its own: filters and options (not pagination, not `environment`). */
  query: { name: string; schema: Schema }[];
  paged: boolean;
  /** HTTP Basic (log-in), no credential at all, or a bearer. */
  auth: 'basic' | 'none' | 'bearer';
  /** Statuses whose documented answer is not a JSON:API document: no body, a page, a file, plain JSON. */
  notJsonApi: ReadonlySet<number>;
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const description = JSON.parse(readFileSync(resolve(ROOT, 'docs/openapi.json'), 'utf8')) as Description;

/** The schema a `$ref` names, followed until it names none. */
export function resolved(schema: Schema): Schema {
  let current = schema;
  while (current.$ref) current = description.components.schemas[current.$ref.split('/').pop() ?? ''] ?? {};
  return current;
}

const parameter = (p: Parameter) => (p.$ref ? (description.components.parameters[p.$ref.split('/').pop() ?? ''] ?? p) : p);
const response = (r: ResponseObject) => (r.$ref ? (description.components.responses[r.$ref.split('/').pop() ?? ''] ?? r) : r);

const PAGINATION = new Set(['page[number]', 'page[size]', 'page[cursor]', 'limit', 'environment']);

function authOf(operation: Operation): RouteInfo['auth'] {
  const schemes = (operation.security ?? []).flatMap((entry) => Object.keys(entry));
  if (schemes.includes('basic')) return 'basic';
  return schemes.length === 0 ? 'none' : 'bearer';
}

function infoOf(route: Route): RouteInfo {
  const operation = description.paths[route.path]?.[route.method.toLowerCase()];
  if (!operation) throw new Error(`docs/openapi.json does not describe ${route.operation} (${route.method} ${route.path})`);
  const parameters = (operation.parameters ?? []).map(parameter);
  const segments = route.path.split('/');
  const idAt = segments.indexOf('{id}');
  const content = operation.requestBody?.content;
  const notJsonApi = new Set<number>();
  for (const [status, answer] of Object.entries(operation.responses)) {
    const types = Object.keys(response(answer).content ?? {});
    if (!types.includes(JSON_API)) notJsonApi.add(Number(status));
  }
  return {
    route,
    resource: idAt > 0 ? segments[idAt - 1] : undefined,
    body: content ? (content[JSON_API] ?? Object.values(content)[0])?.schema : undefined,
    bodyRequired: operation.requestBody?.required ?? false,
    query: parameters.filter((p) => p.in === 'query' && !PAGINATION.has(p.name)).map((p) => ({ name: p.name, schema: p.schema })),
    paged: parameters.some((p) => p.name === 'page[cursor]'),
    auth: authOf(operation),
    notJsonApi,
  };
}

/** Every route of the route table, in its order. */
export const ROUTES: readonly RouteInfo[] = routes.map(infoOf);

export const routeInfo = (operation: string) => ROUTES.find((info) => info.route.operation === operation);
