/**
 * The parts of an OpenAPI 3.1 description the reference page reads, typed loosely enough that
 * any valid description (docs/openapi.json, imported as JSON) fits, and the local references
 * (`#/components/...`) it follows.
 */

/**
 * A JSON object's members by name. A member may read `undefined`: TypeScript gives the objects of
 * an imported JSON array each other's members as optional, undefined ones.
 */
export type Members<T> = Readonly<Record<string, T | undefined>>;

/** The members that are there. */
export const present = <T>(members: Members<T> | undefined): [string, T][] =>
  Object.entries(members ?? {}).filter((entry): entry is [string, T] => entry[1] !== undefined);

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it): `true` and `false` are schemas too. */
export type Schema = boolean | SchemaObject;

export interface SchemaObject {
  $ref?: string;
  title?: string;
  description?: string;
  type?: string | readonly string[];
  format?: string;
  const?: unknown;
  enum?: readonly unknown[];
  default?: unknown;
  examples?: readonly unknown[];
  properties?: Members<Schema>;
  required?: readonly string[];
  additionalProperties?: Schema;
  items?: Schema;
  oneOf?: readonly Schema[];
  anyOf?: readonly Schema[];
  allOf?: readonly Schema[];
  not?: Schema;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  readOnly?: boolean;
  writeOnly?: boolean;
  deprecated?: boolean;
}

export interface Reference {
  $ref: string;
  summary?: string;
  description?: string;
}

export interface MediaType {
  schema?: Schema;
}

export interface Header {
  description?: string;
  required?: boolean;
  schema?: Schema;
}

export interface Parameter {
  name: string;
  in: string;
  description?: string;
  required?: boolean;
  deprecated?: boolean;
  schema?: Schema;
}

export interface RequestBody {
  description?: string;
  required?: boolean;
  content?: Members<MediaType>;
}

export interface Response {
  description?: string;
  headers?: Members<Header | Reference>;
  content?: Members<MediaType>;
}

/** Each entry names a scheme of components.securitySchemes; an empty requirement (`{}`) means none is needed. */
export type SecurityRequirement = Members<readonly string[]>;

export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: readonly string[];
  deprecated?: boolean;
  parameters?: readonly (Parameter | Reference)[];
  requestBody?: RequestBody | Reference;
  responses?: Members<Response | Reference>;
  security?: readonly SecurityRequirement[];
}

export const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace'] as const;
export type HttpMethod = (typeof METHODS)[number];

export type PathItem = { [M in HttpMethod]?: Operation } & {
  summary?: string;
  description?: string;
  parameters?: readonly (Parameter | Reference)[];
};

export interface SecurityScheme {
  type: string;
  description?: string;
  scheme?: string;
  bearerFormat?: string;
  in?: string;
  name?: string;
}

export interface Tag {
  name: string;
  description?: string;
}

export interface OpenApiDescription {
  openapi: string;
  info: { title: string; version: string; summary?: string; description?: string };
  servers?: readonly { url: string; description?: string }[];
  tags?: readonly Tag[];
  security?: readonly SecurityRequirement[];
  paths?: Members<PathItem>;
  webhooks?: Members<PathItem>;
  components?: {
    schemas?: Members<Schema>;
    parameters?: Members<Parameter | Reference>;
    requestBodies?: Members<RequestBody | Reference>;
    responses?: Members<Response | Reference>;
    headers?: Members<Header | Reference>;
    securitySchemes?: Members<SecurityScheme | Reference>;
  };
}

export const isReference = (value: object): value is Reference => typeof (value as { $ref?: unknown }).$ref === 'string';

/** The name a `#/components/schemas/<name>` reference gives, else undefined. */
export function schemaName(ref: string): string | undefined {
  const match = /^#\/components\/schemas\/([^/]+)$/.exec(ref);
  return match ? unescapePointer(match[1] ?? '') : undefined;
}

const unescapePointer = (token: string) => decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');

/** Follows a local JSON pointer (`#/...`); undefined when it leads nowhere. */
function pointAt(description: OpenApiDescription, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let target: unknown = description;
  for (const token of ref.slice(2).split('/').map(unescapePointer)) {
    if (typeof target !== 'object' || target === null || !Object.hasOwn(target, token)) return undefined;
    target = (target as Record<string, unknown>)[token];
  }
  return target;
}

/**
 * The object a component reference stands for, following references to references (a cycle or
 * a reference that leads nowhere gives undefined).
 */
export function resolved<T extends object>(description: OpenApiDescription, value: T | Reference): T | undefined {
  const seen = new Set<string>();
  let current: unknown = value;
  while (typeof current === 'object' && current !== null && isReference(current)) {
    if (seen.has(current.$ref)) return undefined;
    seen.add(current.$ref);
    current = pointAt(description, current.$ref);
  }
  return typeof current === 'object' && current !== null ? (current as T) : undefined;
}
