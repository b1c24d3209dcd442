/**
 * The API's OpenAPI 3.1 description, generated: each route of the table (shared/routes.ts) with
 * the declaration of its operation (shared/resources/<resource>/operations.ts), the resource objects
 * (each resource's schema.ts, gathered by shared/reference/resources.ts), the errors the pipeline answers (shared/http/pipeline.ts) and the
 * webhook deliveries (shared/events/kinds.ts). `npm run docs` writes it to docs/openapi.json.
 */
import { readFileSync } from 'node:fs';
import * as z from 'zod/mini';
import { eventKinds } from '../events/kinds.ts';
import { MAX_ANSWER_BYTES } from '../http/answer-size.ts';
import type { Answer, Declaration, ResourceType } from '../http/declaration.ts';
import { FILE_MEDIA_TYPE } from '../http/documents.ts';
import { ApiError, MEDIA_TYPE } from '../http/errors.ts';
import { MAX_DATASET_BYTES } from '../resources/check-out/certificate.ts';
import { type DeclaredRoute, type Route, routes } from '../routes.ts';
import { namedSchemas, resourceSchemaName } from './resources.ts';

type Json = Record<string, unknown>;

export interface OpenApiDocument {
  openapi: string;
  info: Json;
  tags: { name: string }[];
  paths: Record<string, Record<string, Json>>;
  webhooks: Record<string, Json>;
  components: {
    schemas: Record<string, Json>;
    parameters: Record<string, Json>;
    headers: Record<string, Json>;
    responses: Record<string, Json>;
    pathItems: Record<string, Json>;
    securitySchemes: Record<string, Json>;
  };
}

/** The description of every operation the route table holds. */
export async function buildOpenApi(): Promise<OpenApiDocument> {
  const document = skeleton();
  for (const route of routes) {
    const tag = tagOf(route);
    if (!document.tags.some((t) => t.name === tag)) document.tags.push({ name: tag });
    document.paths[route.path] ??= {};
    document.paths[route.path][route.method.toLowerCase()] = describeOperation(route, document);
  }
  document.components.schemas = sortedByKey(document.components.schemas);
  document.components.responses = sortedByKey(document.components.responses);
  return document;
}

/** The file docs/openapi.json holds: 2-space indentation and a trailing newline. */
export const serializeOpenApi = (document: OpenApiDocument) => `${JSON.stringify(document, null, 2)}\n`;

const ref = (section: keyof OpenApiDocument['components'], name: string) => ({ $ref: `#/components/${section}/${name}` });
const schemaRef = (name: string) => ref('schemas', name);

function skeleton(): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Licensing API',
      version: packageVersion(),
      description: [
        'A software-licensing API of JSON:API documents: accounts, environments, products, policies, licenses, machines,',
        'components, users, tokens and webhooks. Requests send `application/vnd.api+json` (or `application/json`);',
        'answers are `application/vnd.api+json` with an `X-Request-Id` header. Errors are `{meta: {id}, errors}`.',
        'An environment is chosen by the `Service-Environment` header (or its alias `Keygen-Environment`), else the',
        '`environment` query parameter; none is the global environment. Every list is paginated the same way.',
        'A request that matches no operation answers 404 (`components.responses.NoRoute`); before any operation is looked for, a body over 1 MB is refused with 413 and a request line and headers over 16 KB with 431.',
        `An answer is at most ${MAX_ANSWER_BYTES} bytes as Lambda counts it (its body escaped in a JSON string, with its headers): one that would be larger, a page of very large records, is 422 \`ANSWER_TOO_LARGE\` (ask for a smaller page); a license or machine file carries at most ${MAX_DATASET_BYTES} bytes of records, else 422 \`CHECKOUT_FILE_TOO_LARGE\` (include fewer).`,
        'The rules behind every answer are in docs/rules.md; who may do what is in docs/authorization.md.',
      ].join(' '),
    },
    tags: [],
    paths: {},
    webhooks: webhooks(),
    components: {
      schemas: { ...resourceObjectSchemas(), ...documentSchemas() },
      parameters: PARAMETERS,
      headers: HEADERS,
      responses: { NoRoute: errorResponse(404, 'No operation matches the method and path') },
      pathItems: { WebhookDelivery: WEBHOOK_DELIVERY },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

/** An operation's tag: its resource family, as its name starts (`webhookEndpoints.list` → `webhook-endpoints`). */
function tagOf(route: Route): string {
  // Splitting yields at least one part: the whole name when it has no dot.
  const [family] = route.operation.split('.');
  return family.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** `components.tokens.generate` → `ComponentsTokensGenerate`. */
const pascal = (operation: string) =>
  operation
    .split('.')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

function describeOperation(route: DeclaredRoute, document: OpenApiDocument): Json {
  const schemas = document.components.schemas;
  const operation: Json = {
    operationId: route.operation,
    summary: route.summary,
    tags: [tagOf(route)],
    security: SECURITY[route.auth],
    parameters: [
      ...[...(route.path.includes('{account}') ? ['account'] : []), ...route.params].map((name) => {
        if (!(name in PATH_PARAMETERS)) throw new Error(`${route.operation}: no description of the path parameter '${name}'`);
        return ref('parameters', name);
      }),
      ...queryParameters(route, route.query),
      ...(route.paged ? PAGE_PARAMETERS.map((name) => ref('parameters', name)) : []),
      ...(route.plain ? [] : ENVIRONMENT_PARAMETERS.map((name) => ref('parameters', name))),
    ],
  };
  if (route.body) {
    const name = `${pascal(route.operation)}Request`;
    schemas[name] = jsonSchemaOf(route.body, route.operation);
    const media = { schema: schemaRef(name) };
    operation.requestBody = {
      required: !z.safeParse(route.body, undefined).success,
      content: { [MEDIA_TYPE]: media, 'application/json': media },
    };
  }
  const responses: Record<string, Json> = {};
  for (const [status, answer] of Object.entries(route.answers)) responses[status] = describeAnswer(answer, route.operation, schemas);
  for (const status of errorStatuses(route)) {
    const name = `Error${status}`;
    document.components.responses[name] ??= errorResponse(status);
    responses[status] = ref('responses', name);
  }
  operation.responses = sortedByKey(responses);
  return operation;
}

/**
 * The errors an operation may answer: the pipeline's for every operation (400 media type, body,
 * query, environment or a value the table cannot hold; 404 account; 413 body size; 431 head size;
 * 422 an answer too large to give, or for one that writes a record too large for the table; 500),
 * 401 for a credential, 403 for a bearer, 429 per source address, 409 for a PATCH whose `data.id`
 * is not its path's, and its own faults.
 */
function errorStatuses(route: DeclaredRoute): number[] {
  // A body or a head too large is refused before any operation runs, a plain one's too.
  if (route.plain) return [...new Set([413, 431, ...(route.faults ?? [])])].sort((a, b) => a - b);
  const statuses = new Set([400, 404, 413, 422, 431, 500, ...(route.faults ?? [])]);
  if (route.auth !== 'none') statuses.add(401);
  if (route.auth === 'bearer') statuses.add(403);
  if (route.limitPerAddress) statuses.add(429);
  if (route.method === 'PATCH' && route.body) statuses.add(409);
  return [...statuses].sort((a, b) => a - b);
}

function describeAnswer(answer: Answer, operation: string, schemas: Record<string, Json>): Json {
  if ('empty' in answer) return { description: 'No content', headers: ANSWER_HEADERS };
  if ('html' in answer) {
    return { description: 'An HTML page', headers: ANSWER_HEADERS, content: { 'text/html': { schema: { type: 'string' } } } };
  }
  if ('json' in answer) return { description: 'A JSON document', content: { 'application/json': { schema: { type: 'object' } } } };
  if ('file' in answer) {
    return {
      description: 'A file to save, as an attachment',
      headers: { ...ANSWER_HEADERS, 'Content-Disposition': ref('headers', 'Content-Disposition') },
      content: { [FILE_MEDIA_TYPE]: { schema: { type: 'string' } } },
    };
  }
  const schema = documentSchema(answer, operation, schemas);
  return { description: describeDocument(answer), headers: ANSWER_HEADERS, content: { [MEDIA_TYPE]: { schema } } };
}

function describeDocument(answer: Exclude<Answer, { empty: true } | { html: true } | { json: true } | { file: true }>): string {
  if ('list' in answer) return `A page of ${resourceSchemaName(answer.list)} resources`;
  if ('collection' in answer) return `The ${resourceSchemaName(answer.collection)} resources`;
  if ('resource' in answer) return `The ${resourceSchemaName(answer.resource)}${answer.nullable ? ', or null' : ''}`;
  if ('oneOf' in answer) return `One of ${answer.oneOf.map(resourceSchemaName).join(', ')}`;
  return 'The outcome, in meta';
}

function documentSchema(
  answer: Exclude<Answer, { empty: true } | { html: true } | { json: true } | { file: true }>,
  operation: string,
  schemas: Record<string, Json>,
): Json {
  if ('list' in answer) return schemaRef(listDocument(answer.list, schemas));
  if ('collection' in answer) return schemaRef(collectionDocument(answer.collection, schemas));
  if ('oneOf' in answer) return closedObject({ data: { oneOf: answer.oneOf.map((type) => schemaRef(resourceSchemaName(type))) } });
  if ('resource' in answer && !answer.nullable && !answer.meta) return schemaRef(resourceDocument(answer.resource, schemas));
  const members: Record<string, Json> = {};
  if ('resource' in answer) {
    const resource = schemaRef(resourceSchemaName(answer.resource));
    members.data = answer.nullable ? { anyOf: [resource, { type: 'null' }] } : resource;
  }
  if (answer.meta) members.meta = jsonSchemaOf(answer.meta, operation);
  return closedObject(members);
}

/** `{data: <resource>}`, named once per type. */
function resourceDocument(type: ResourceType, schemas: Record<string, Json>): string {
  const resource = resourceSchemaName(type);
  const name = `${resource}Document`;
  schemas[name] ??= closedObject({ data: schemaRef(resource) });
  return name;
}

/** `{data: [<resource>...], links}`, named once per type. */
function listDocument(type: ResourceType, schemas: Record<string, Json>): string {
  const resource = resourceSchemaName(type);
  const name = `${resource}List`;
  schemas[name] ??= closedObject({ data: { type: 'array', items: schemaRef(resource) }, links: schemaRef('ListLinks') });
  return name;
}

/** `{data: [<resource>...]}`, not a page: named once per type. */
function collectionDocument(type: ResourceType, schemas: Record<string, Json>): string {
  const resource = resourceSchemaName(type);
  const name = `${resource}Collection`;
  schemas[name] ??= closedObject({ data: { type: 'array', items: schemaRef(resource) } });
  return name;
}

const closedObject = (members: Record<string, Json>) => ({
  type: 'object',
  properties: members,
  required: Object.keys(members),
  additionalProperties: false,
});

/** A declaration's query schema as parameters: bracket-named arrays (`events[]`) and deep objects (`filter[product]`). */
function queryParameters(route: Route, query: Declaration['query']): Json[] {
  if (!query) return [];
  const schema = jsonSchemaOf(query, route.operation) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const required = schema.required?.includes(name) ?? false;
    if (property.type === 'array') return { name: `${name}[]`, in: 'query', required, style: 'form', explode: true, schema: property };
    if (property.type === 'object') return { name, in: 'query', required, style: 'deepObject', explode: true, schema: property };
    return { name, in: 'query', required, schema: property };
  });
}

/** A zod schema of a declaration as JSON Schema, as a client sends it (the input of its transforms). */
function jsonSchemaOf(schema: z.ZodMiniType, operation: string): Json {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: ({ zodSchema, path }) => {
      if (zodSchema._zod.def.type === 'custom' && acceptsJsonObjectsOnly(zodSchema)) return { type: 'object' };
      throw new Error(`${operation}: the schema at ${path.join('.') || 'its root'} has no JSON Schema; describe it`);
    },
  });
  return json;
}

/**
 * The metadata schema (shared/resources/rules.ts) is a zod custom — it keeps the object as sent —
 * and has no JSON Schema of its own: a custom that takes any JSON object and nothing else is one.
 */
function acceptsJsonObjectsOnly(schema: z.core.$ZodType): boolean {
  const accepts = (value: unknown) => z.safeParse(schema, value).success;
  return accepts({}) && accepts({ key: [1, null] }) && [null, [], '', 0, true].every((value) => !accepts(value));
}

/** The resource objects and what they share, referring to each other within components.schemas. */
function resourceObjectSchemas(): Record<string, Json> {
  const { schemas } = z.toJSONSchema(namedSchemas, { io: 'input', uri: (id) => `#/components/schemas/${id}` });
  return Object.fromEntries(Object.entries(schemas).map(([name, { $schema: _dialect, $id: _id, ...schema }]) => [name, schema as Json]));
}

/** The errors' and the lists' documents (docs/rules.md §2.1, §4). */
function documentSchemas(): Record<string, Json> {
  const source = (member: string) => closedObject({ [member]: { type: 'string' } });
  return {
    ErrorDocument: closedObject({
      meta: closedObject({ id: { type: 'string', description: 'The request id, as in X-Request-Id' } }),
      errors: { type: 'array', minItems: 1, items: schemaRef('Error') },
    }),
    Error: {
      type: 'object',
      properties: {
        title: { type: 'string', description: 'The title of the status (docs/rules.md §2.1)' },
        detail: { type: 'string', minLength: 1 },
        code: { type: 'string' },
        source: {
          description: 'Where the fault lies: a JSON pointer into the body, a query parameter in bracket form, or a header',
          oneOf: [source('pointer'), source('parameter'), source('header')],
        },
      },
      required: ['title', 'detail'],
      additionalProperties: false,
    },
    ListLinks: {
      type: 'object',
      description: 'Page links: `self`, `prev`, `next`, `first`, `last` by page number; `self` and `next` by cursor (docs/rules.md §4)',
      properties: {
        self: { type: 'string' },
        prev: { type: ['string', 'null'] },
        next: { type: ['string', 'null'] },
        first: { type: 'string' },
        last: { type: 'string' },
        meta: closedObject({ pages: { type: 'integer', minimum: 0 }, count: { type: 'integer', minimum: 0 } }),
      },
      required: ['self', 'next', 'meta'],
      additionalProperties: false,
    },
  };
}

/** An error answer: the error document, each error with its status's title. */
function errorResponse(status: number, description?: string): Json {
  // The title the pipeline gives an error of this status: that of the one error it is built with.
  const [{ title }] = new ApiError(status, [{ detail: '' }]).errors;
  const headers: Record<string, Json> = { ...ANSWER_HEADERS };
  if (status === 401) headers['WWW-Authenticate'] = ref('headers', 'WWW-Authenticate');
  if (status === 429) for (const name of RATE_LIMIT_HEADERS) headers[name] = ref('headers', name);
  return {
    description: description ?? title,
    headers,
    content: {
      [MEDIA_TYPE]: {
        schema: {
          allOf: [
            schemaRef('ErrorDocument'),
            {
              type: 'object',
              properties: { errors: { type: 'array', items: { type: 'object', properties: { title: { const: title } } } } },
            },
          ],
        },
      },
    },
  };
}

/** What every answer carries, an error's too. */
const ANSWER_HEADERS = {
  'X-Request-Id': ref('headers', 'X-Request-Id'),
  'Service-Environment': ref('headers', 'Service-Environment'),
};

const RATE_LIMIT_HEADERS = ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

const HEADERS: Record<string, Json> = {
  'X-Request-Id': { description: "The request's id, also the error document's meta.id", schema: { type: 'string' } },
  'Service-Environment': {
    description: 'The code of the environment the request was served in; absent for the global one',
    schema: { type: 'string' },
  },
  'Content-Disposition': { description: '`attachment; filename="<name>"`: the name to save the file as', schema: { type: 'string' } },
  'WWW-Authenticate': { description: 'The scheme to authenticate with, when no credential was sent', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds until the limit allows a request again', schema: { type: 'integer' } },
  'X-RateLimit-Limit': { description: 'Requests allowed in the window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the window restarts, in Unix seconds', schema: { type: 'integer' } },
};

const ENVIRONMENT_PARAMETERS = ['environment', 'Service-Environment', 'Keygen-Environment'];
const PAGE_PARAMETERS = ['pageNumber', 'pageSize', 'pageCursor', 'limit'];
/** The largest page (docs/rules.md §4). */
const MAX_PAGE_SIZE = 100;
const pageSizeSchema = { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 10 };

const PATH_PARAMETERS: Record<string, Json> = {
  account: { name: 'account', in: 'path', required: true, description: "The account's UUID or its slug", schema: { type: 'string' } },
  id: {
    name: 'id',
    in: 'path',
    required: true,
    description:
      "The record's UUID; an environment's may be its code, and where docs/rules.md §11.2 says so a license's its key and a machine's its fingerprint",
    schema: { type: 'string' },
  },
  secondFactor: {
    name: 'secondFactor',
    in: 'path',
    required: true,
    description: "The second factor's UUID",
    schema: { type: 'string' },
  },
};

const PARAMETERS: Record<string, Json> = {
  ...PATH_PARAMETERS,
  environment: {
    name: 'environment',
    in: 'query',
    required: false,
    description: "The environment's UUID or code, when neither header names it (docs/rules.md §5.1)",
    schema: { type: 'string' },
  },
  'Service-Environment': {
    name: 'Service-Environment',
    in: 'header',
    required: false,
    description: 'The environment to act in, by UUID or code (case-insensitive); absent: the global environment',
    schema: { type: 'string' },
  },
  'Keygen-Environment': {
    name: 'Keygen-Environment',
    in: 'header',
    required: false,
    description: 'An alias of Service-Environment; both naming different environments is 400 ENVIRONMENT_HEADER_CONFLICT',
    schema: { type: 'string' },
  },
  pageNumber: { name: 'page[number]', in: 'query', required: false, schema: { type: 'integer', minimum: 1, default: 1 } },
  pageSize: { name: 'page[size]', in: 'query', required: false, schema: pageSizeSchema },
  pageCursor: {
    name: 'page[cursor]',
    in: 'query',
    required: false,
    description: 'An opaque cursor from a `next` link; empty for the first page. Not with page[number].',
    schema: { type: 'string' },
  },
  limit: { name: 'limit', in: 'query', required: false, description: 'The page size when `page` is absent', schema: pageSizeSchema },
  'webhook-id': {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: "The event's idempotency token, the same across retries",
    schema: { type: 'string' },
  },
  'webhook-timestamp': { name: 'webhook-timestamp', in: 'header', required: true, description: 'Unix seconds', schema: { type: 'string' } },
  'webhook-signature': {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description: '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the signing secret\'s bytes',
    schema: { type: 'string' },
  },
};

const SECURITY_SCHEMES: Record<string, Json> = {
  bearer: { type: 'http', scheme: 'bearer', description: 'A token: `Authorization: Bearer <token>` (docs/rules.md §6.1)' },
  license: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description:
      'A license by its key: `Authorization: License <license key>`, the word `License` included ' +
      '(OpenAPI has no way to name a custom HTTP scheme). Accepted wherever a token is.',
  },
  basic: { type: 'http', scheme: 'basic', description: "A user's e-mail and password: log-in (`POST /tokens`) only" },
};

const SECURITY: Record<Declaration['auth'], Json[]> = {
  bearer: [{ bearer: [] }, { license: [] }],
  basic: [{ basic: [] }],
  none: [],
};

/** One POST per event kind to the endpoints that subscribe to it (docs/rules.md §26.4), all alike. */
const WEBHOOK_DELIVERY: Json = {
  post: {
    summary: 'An event, delivered',
    description:
      'Signed as Standard Webhooks sign (docs/rules.md §26.4). The event is as `GET /webhook-events/<id>` shows it, ' +
      'its payload as delivered.',
    parameters: ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ref('parameters', name)),
    requestBody: {
      required: true,
      content: { [MEDIA_TYPE]: { schema: closedObject({ data: schemaRef(resourceSchemaName('webhook-events')) }) } },
    },
    responses: {
      '2XX': { description: 'Delivered' },
      '410': { description: 'Gone: the endpoint is disabled and the event fails' },
      default: { description: 'Not delivered: another attempt follows on the retry schedule, until the last' },
    },
  },
};

const webhooks = () =>
  Object.fromEntries(eventKinds().map((kind) => [kind, { ...ref('pathItems', 'WebhookDelivery'), summary: `The ${kind} event` }]));

function sortedByKey<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
