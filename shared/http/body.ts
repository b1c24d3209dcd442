/**
 * Request bodies: JSON:API documents validated with zod. A shape fault becomes a 400 whose
 * `source.pointer` names the key, with the wording clients of this API family expect:
 * "is missing", "unpermitted parameter", "cannot be blank", "type mismatch (expected ...)".
 */

import { en } from 'zod/locales';
import * as z from 'zod/mini';
import { ApiError, badRequest, payloadTooLarge } from './errors.ts';

// zod's functional build keeps bundles small but ships without messages; the issues `describe`
// does not word itself carry zod's English ones, as the full build sets them.
z.config(en());

export type Body = { json: unknown } | { malformed: true } | { absent: true };

/** The largest request body the API reads, in bytes (1 MB); the local server stops reading past it too. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** 413 PAYLOAD_TOO_LARGE, worded once for the pipeline and the local server. */
export const bodyTooLarge = () => payloadTooLarge(`The request body is larger than 1 MB (${MAX_BODY_BYTES} bytes)`);

/** The body's size as sent (API Gateway hands binary bodies over in base64). */
export const bodyBytes = (raw: string | undefined, isBase64Encoded: boolean | undefined) =>
  raw === undefined ? 0 : Buffer.byteLength(raw, isBase64Encoded ? 'base64' : 'utf8');

export function readBody(raw: string | undefined, isBase64Encoded: boolean | undefined): Body {
  if (raw === undefined || raw === '') return { absent: true };
  const text = isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  try {
    return { json: JSON.parse(text) };
  } catch {
    return { malformed: true };
  }
}

/** A string that is not empty once trimmed. */
export const nonBlank = () => z.string().check(z.refine((s) => s.trim().length > 0, { message: 'cannot be blank' }));

type Shape = z.core.$ZodLooseShape;
type Strict<S extends Shape> = z.ZodMiniObject<S, z.core.$strict>;
/** `data`'s members: relationships only where the resource takes some. */
type DataShape<A extends Shape, R extends Shape> = { type: z.ZodMiniLiteral<string> } & A &
  ([keyof R] extends [never] ? unknown : { relationships: Strict<R> });
/** No relationships. */
type None = Record<never, never>;
type Document<D extends Shape> = Strict<{ data: Strict<D> }>;

function document<D extends Shape>(type: string, attributes: z.ZodMiniType, relationships?: Shape): Document<D> {
  const data = {
    type: z.literal(type),
    attributes,
    ...(relationships ? { relationships: z.strictObject(relationships) } : {}),
  };
  return z.strictObject({ data: z.strictObject(data) }) as unknown as Document<D>;
}

/** The body of a create: `{data: {type, attributes, relationships?}}`, no client id. */
export const resourceDocument = <A extends Shape, R extends Shape = None>(type: string, attributes: A, relationships?: R) =>
  document<DataShape<{ attributes: Strict<A> }, R>>(type, z.strictObject(attributes), relationships);

/**
 * The body of an update: as resourceDocument, with every attribute optional and `attributes`
 * itself optional (JSON:API: a PATCH may send only what it changes, or nothing).
 */
export const updateDocument = <A extends Shape, R extends Shape = None>(type: string, attributes: A, relationships?: R) =>
  document<DataShape<{ attributes: z.ZodMiniOptional<Strict<A>> }, R>>(type, z.optional(z.strictObject(attributes)), relationships);

/**
 * The body of an update whose path may name its record by an alias (a license by its key; the
 * declaration is `pathByAlias`): as updateDocument, with `data.id` read here, for the service to
 * compare with the id of the record it finds.
 */
export const aliasedUpdateDocument = <A extends Shape>(type: string, attributes: A) =>
  z.strictObject({
    data: z.strictObject({ type: z.literal(type), id: z.optional(z.string()), attributes: z.optional(z.strictObject(attributes)) }),
  });

/** A relationship body: `{data: {type, id}}`. */
/** `{data: {type: "users", id}}` (Keygen takes `user` too), or `{data: null}` for none: a new owner, of a license or a machine. */
export const userOrNone = () => z.strictObject({ data: z.nullable(z.strictObject({ type: z.enum(['users', 'user']), id: nonBlank() })) });

export const relationship = (type: string) => z.strictObject({ data: z.strictObject({ type: z.literal(type), id: nonBlank() }) });

/** `{meta: {...}}` bodies of actions. */
export const metaDocument = <M extends z.core.$ZodLooseShape>(meta: M) => z.strictObject({ meta: z.strictObject(meta) });

/**
 * Validates a body against its schema. An update names its record in the path: pass that id as
 * `pathId` and a `data.id` equal to it is accepted (JSON:API clients send it), any other refused.
 */
export function parseBody<T>(body: Body, schema: z.ZodMiniType<T>, pathId?: string): T {
  if ('malformed' in body) throw badRequest('The request body is not valid JSON', { code: 'JSON_INVALID' });
  let input = 'json' in body ? body.json : undefined;
  if (input === undefined) {
    // An action whose body is optional takes none.
    const absent = schema.safeParse(undefined);
    if (absent.success) return absent.data;
  }
  if (input === undefined) throw new ApiError(400, [{ detail: 'is missing', code: 'PARAMETER_INVALID', source: { pointer: '/data' } }]);
  if (pathId !== undefined) input = withoutPathId(input, pathId);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ApiError(
    400,
    result.error.issues.flatMap((issue) => describe(issue, input)),
  );
}

function withoutPathId(input: unknown, pathId: string): unknown {
  const data = (input as { data?: unknown } | null)?.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data) || !('id' in data)) return input;
  const { id, ...rest } = data as Record<string, unknown>;
  if (typeof id !== 'string' || id.toLowerCase() !== pathId.toLowerCase()) {
    throw new ApiError(409, [
      { detail: `data.id does not match the id in the path (${pathId})`, code: 'ID_MISMATCH', source: { pointer: '/data/id' } },
    ]);
  }
  return { ...(input as object), data: rest };
}

function describe(issue: z.core.$ZodIssue, input: unknown) {
  const pointer = (path: PropertyKey[]) => `/${path.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
  const at = (path: PropertyKey[]) => ({ code: 'PARAMETER_INVALID', source: { pointer: pointer(path) } });
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_value') && valueAt(input, issue.path) === undefined) {
    return [{ detail: 'is missing', ...at(issue.path) }];
  }
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({ detail: 'unpermitted parameter', ...at([...issue.path, key]) }));
    case 'invalid_type':
      return [{ detail: `type mismatch (expected ${issue.expected})`, ...at(issue.path) }];
    case 'invalid_value':
      return [{ detail: `type mismatch (expected ${issue.values.map((v) => JSON.stringify(v)).join(' or ')})`, ...at(issue.path) }];
    default:
      return [{ detail: issue.message, ...at(issue.path) }];
  }
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value: unknown = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
