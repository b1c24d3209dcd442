/**
 * What an operation declares, all in one object in its resource's operations.ts: its method and
 * path, the function that serves it and what that function may touch, how it authenticates, its
 * path parameters, its body and query schemas, the documents it answers with and the faults of
 * its own. The route table (shared/routes.ts), and from it the CDK stack and the local stack, is
 * the list of these declarations; the pipeline parses and validates requests from the
 * declaration (shared/http/pipeline.ts); the OpenAPI description is generated from them
 * (shared/reference/, docs/openapi.json).
 */

import type * as z from 'zod/mini';
import type { Access, Method, Throttle } from '../access.ts';
import type { Action, PolicyType } from '../auth/policies/index.ts';
import type { manifest } from '../resources/manifest.ts';
import type { Key } from '../store/keys.ts';

/** How a route authenticates: a token or license key, HTTP Basic (log-in), or not at all. */
export type AuthMode = 'bearer' | 'basic' | 'none';

type Manifest = typeof manifest;
type TypesOf<R> = (R extends { policies: infer P } ? keyof P : never) | (R extends { documents: readonly (infer D)[] } ? D : never);

/** The JSON:API types resource `N` serves: those it judges with a policy, and the documents it makes without one. */
export type ServedTypes<N extends keyof Manifest> = TypesOf<Manifest[N]> & string;

/** The JSON:API resource types the API serves: those of every resource of the manifest. */
export type ResourceType = ServedTypes<keyof Manifest>;

/** The document of one successful answer. */
export type Answer =
  /** `{data: <resource>}`; `nullable`: a to-one relationship that may be empty (`data: null`). */
  | { resource: ResourceType; nullable?: boolean; meta?: z.ZodMiniType }
  /** `{data: <resource>}` of one of several types (the bearer of `GET /me`: a user, a product, a license...). */
  | { oneOf: readonly ResourceType[] }
  /** A page of a collection: `{data: [...], links}` (the declaration is `paged`). */
  | { list: ResourceType }
  /** Resources a request made or named, not a page: `{data: [...]}` (the attachments of an attach). */
  | { collection: ResourceType }
  /** `{meta: {...}}` alone. */
  | { meta: z.ZodMiniType }
  /** No body (204, 202). */
  | { empty: true }
  /** An HTML page (the hosted password-reset form, the API reference). */
  | { html: true }
  /** A JSON document that is not JSON:API (the API's own OpenAPI description). */
  | { json: true }
  /** A file to save, `application/octet-stream` with a `Content-Disposition` naming it (a license file). */
  | { file: true };

/**
 * What an operation asks the policies before it answers: the action of a type's policy, and
 * whether it is asked of a record (`record`: the one the path names) or of the type (a create, a
 * list). A bearer's request is answered only if its service asked it (Keygen's
 * `verify_authorized`): a service that forgot to ask answers 500, never what it would have
 * answered. Like Keygen's, the check is that the question was asked, of some record of the type
 * when `record`; which record is the service's part, and its tests'. `nothing` names why an
 * operation asks no policy (the bearer's own record: every credential may read it).
 */
export type Authorization = { [T in PolicyType]: { type: T; action: Action<T>; record?: true } }[PolicyType] | { nothing: string };

export interface Declaration<A extends AuthMode = AuthMode, P extends string = string, B = unknown, Q = unknown> {
  /** Unique, stable name: `<resource>.<action>`; also the Lambda's logical id. */
  operation: string;
  method: Method;
  /** Full path under the API root, in API Gateway's `{name}` syntax, e.g. `/v1/accounts/{account}/users/{id}`. */
  path: string;
  access: readonly Access[];
  /** API Gateway's limit for this route, in place of the stage's default (lib/stage.ts). */
  throttle?: Throttle;
  /** One line for a person reading the reference. */
  summary: string;
  auth: A;
  /** Path parameters besides `account`, as the route's path names them. */
  params: readonly P[];
  /** The request document; its output is what the handler receives. Absent: any body is ignored. */
  body?: z.ZodMiniType<B>;
  /**
   * The path's `{id}` may name the record by another key than its id (an environment by its
   * code, a license by its key, a machine by its fingerprint): an update's `data.id` is then the
   * body schema's to read and the service's to compare with the record it finds, not the path's.
   */
  pathByAlias?: boolean;
  /**
   * Items the body names that the handler will read, read ahead with the account in the
   * pipeline's first BatchGetItem (request-keys.ts): the JSON body as sent, before it is parsed,
   * so whatever it holds may be asked for — a key it cannot name is no key.
   */
  readAhead?: (accountId: string, json: unknown) => Key[];
  /** Query parameters besides pagination and `environment`; unknown ones are ignored. */
  query?: z.ZodMiniType<Q>;
  /** A list: reads page[number], page[size], page[cursor] and limit, and answers with links. */
  paged?: boolean;
  /**
   * Counted per source address (routes anyone may call: log-in, validate-key, password requests),
   * once the account is found and before the credential is checked, by each container in batches
   * (shared/store/rate-limit.ts, `tallyHit`).
   */
  limitPerAddress?: boolean;
  /**
   * Served by a plain handler outside the JSON:API pipeline (a page, the description itself): it
   * reads no environment or credential and answers only what it declares.
   */
  plain?: boolean;
  /** The successful answers, by status. */
  answers: Readonly<Record<number, Answer>>;
  /** What it asks the policies; required of every operation a bearer calls. */
  authorizes?: Authorization;
  /** Statuses of this operation's own faults; the pipeline's own (400, 401, 404, 413, 429) are implied. */
  faults?: readonly number[];
}

/** Fills the defaults and keeps the literal types the handler's arguments are inferred from. */
export function declare<const A extends AuthMode, const P extends string = never, B = undefined, Q = Record<string, never>>(
  declaration: Omit<Declaration<A, P, B, Q>, 'params'> & { params?: readonly P[] } & (A extends 'bearer'
      ? { authorizes: Authorization }
      : unknown),
): Declaration<A, P, B, Q> {
  return { ...declaration, params: declaration.params ?? [] };
}
