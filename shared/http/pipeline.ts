/**
 * The request pipeline every operation runs through, in this order (docs/rules.md §2.3):
 *
 *   trace        when tracing is on (shared/tracer.ts): one X-Ray subsegment around the steps below,
 *                annotated with the operation, the account and the status
 *   respond      request id and logging; renders replies and every error (registered before the
 *                steps, so its onError sees all of them); signs every answer for an account
 *                that exists (shared/http/signature.ts), those refused before the account step too;
 *                gives none larger than Lambda may send (422 ANSWER_TOO_LARGE in its place,
 *                shared/http/answer-size.ts)
 *   negotiate    body size (413 PAYLOAD_TOO_LARGE), media types (400 MIME_TYPE_INVALID)
 *   read ahead   one BatchGetItem of what the next steps and the handler read first
 *   account      <account> by UUID or slug (404); the Keygen-Accept-Signature it is asked to
 *                sign with (400 ACCEPT_SIGNATURE_INVALID)
 *   by address   routes anyone may call (`limitPerAddress`), per source address and route
 *                (429); counted before any credential is checked, so failures count
 *   environment  Service-Environment (or its alias Keygen-Environment) header, else ?environment=
 *                (400 ENVIRONMENT_INVALID; 400 ENVIRONMENT_HEADER_CONFLICT when the two headers differ)
 *   authenticate the bearer (a token, or `License <key>`), admitted into that environment (401)
 *   parse        by the operation's declaration (shared/http/declaration.ts): path parameters,
 *                body shape (400), query parameters (400), page
 *   handler      visibility (404), permission (403), model rules (422)
 *   verify       a bearer's request whose service did not ask the policies what its declaration
 *                says it authorizes (`authorizes`: the type and action, and whether of a record)
 *                answers 500 instead, whatever the handler did (Keygen's verify_authorized)
 *
 * A handler receives the parsed values with its Actor (shared/auth/actor.ts) and returns a Reply; it never builds an error response or touches headers itself. The service it
 * calls throws the service's faults (shared/errors.ts), mapped to JSON:API errors in one place
 * (`toApiError`, in `respond`'s onError). Every store call a request makes fails through that
 * boundary too, so it is also where a DynamoDB or marshaller error caused by the request's values
 * becomes a 4xx (storageLimitOf, shared/store/errors.ts), whichever module made the call.
 */
import type { Tracer } from '@aws-lambda-powertools/tracer';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Actor, LoggingIn, Requester } from '../auth/actor.ts';
import { authenticateBasic, authenticateLicenseKey, authenticateToken, bearerTokenKey } from '../auth/authenticate.ts';
import type { Bearer } from '../auth/bearer.ts';
import { digest } from '../auth/secrets.ts';
import { config } from '../config.ts';
import { AnswerTooLarge } from '../errors.ts';
import { logger } from '../logger.ts';
import { type Account, findAccount } from '../resources/accounts/entity.ts';
import { type Environment, findEnvironment } from '../resources/environments/entity.ts';
import type { UserRecord } from '../resources/users/entity.ts';
import { RecordNotFound } from '../store/errors.ts';
import type { PageRequest } from '../store/paging.ts';
import { tallyHit } from '../store/rate-limit.ts';
import { ReadAhead } from '../store/read-ahead.ts';
import { environmentScope, globalScope, type Scope } from '../store/scope.ts';
import { traceInvocation, tracer } from '../tracer.ts';
import { bytesOver, MAX_ANSWER_BYTES } from './answer-size.ts';
import { type Body, bodyBytes, bodyTooLarge, MAX_BODY_BYTES, parseBody, readBody } from './body.ts';
import type { AuthMode, Declaration } from './declaration.ts';
import { FILE_MEDIA_TYPE, linkedReply, type Reply } from './documents.ts';
import { ApiError, badRequest, environmentInvalid, errorResult, MEDIA_TYPE, toApiError } from './errors.ts';
import { pageRequest } from './pagination.ts';
import { parseQuery, parseQueryWith, type Query } from './query.ts';
import { environmentHeader, requestedEnvironment, requestKeys, secondEnvironmentHeader } from './request-keys.ts';
import { checkAcceptSignature, signAnswer } from './signature.ts';
import { clientOf } from './source-address.ts';

/** What the pipeline's steps resolve of a request, before the declaration parses it for the handler. */
export interface RequestContext {
  requestId: string;
  event: APIGatewayProxyEventV2;
  /** Path parameters other than `account`. */
  params: Record<string, string>;
  query: Query;
  body: Body;
  account: Account;
  environment: Environment | null;
  /** What the request may read and where it writes: see shared/store/scope.ts. */
  scope: Scope;
  /** Items read ahead of the handler (see shared/store/read-ahead.ts). */
  readAhead: ReadAhead;
  bearer?: Bearer;
  user?: UserRecord;
  /** Set when the account step looks the account up: an answer it found none for is not looked up again to be signed. */
  accountSought?: true;
}

/** What a handler receives: the request parsed and validated by its declaration. */
export interface Call<A extends AuthMode, P extends string, B, Q> {
  actor: A extends 'bearer' ? Actor : A extends 'basic' ? LoggingIn : Requester;
  params: Readonly<Record<P, string>>;
  /** The body, as the declaration's schema outputs it. */
  body: B;
  /** The query parameters, as the declaration's schema outputs them. */
  query: Q;
  /** The page a list asks for (declarations that are `paged`). */
  page: PageRequest;
  /** The path and the whole query as sent, for a list's links. */
  request: { path: string; query: Query };
}

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;
type PipelineContext = Context & { request: Partial<RequestContext> };
type Middleware = MiddlewareObj<Event, Result, Error, PipelineContext>;

/** Builds the Lambda handler of one API operation from its declaration. */
export function operation<A extends AuthMode, P extends string, B, Q>(
  declaration: Declaration<A, P, B, Q>,
  handle: (call: Call<A, P, B, Q>) => Promise<Reply>,
) {
  const pipeline = traceable(declaration.operation)
    .use(respond())
    .use(negotiate(answersFile(declaration)))
    .use(readAhead(declaration))
    .use(resolveAccount());
  if (declaration.limitPerAddress) pipeline.use(limitAddress(declaration.operation));
  return pipeline
    .use(selectEnvironment())
    .use(authenticate(declaration.auth))
    .use(readQuery())
    .handler(async (_event, context) => {
      const call = parse(declaration, context.request as RequestContext);
      const reply = await handle(call);
      if ('bearer' in call.actor) verifyAuthorized(declaration, call.actor.asked ?? []);
      return render(context, reply);
    });
}

/**
 * Keygen's `verify_authorized`: a bearer's request is answered only if its service asked the
 * policies what the operation declares it authorizes. Thrown after the handler, as an error of
 * the service (500): a change the handler made stands, but no answer goes out that a forgotten
 * check might have refused, and every route's tests meet it at once.
 */
function verifyAuthorized(declaration: Declaration, asked: readonly string[]): void {
  const wanted = declaration.authorizes;
  if (!wanted) throw new Error(`${declaration.operation} declares nothing it authorizes`);
  if ('nothing' in wanted) return;
  const question = `${wanted.type}.${wanted.action}${wanted.record ? '@record' : ''}`;
  if (!asked.includes(question))
    throw new Error(`${declaration.operation} answered without asking ${question} (asked: ${asked.join(', ') || 'nothing'})`);
}

/**
 * The handler's arguments, from what the earlier steps resolved and the declaration's schemas:
 * 400 for a body or query the declaration refuses; a PATCH's `data.id` must be its path's id
 * (where the path may hold an alias, the service checks it against the record it finds).
 */
function parse<A extends AuthMode, P extends string, B, Q>(
  declaration: Declaration<A, P, B, Q>,
  request: RequestContext,
): Call<A, P, B, Q> {
  const params = {} as Record<P, string>;
  for (const name of declaration.params) params[name] = request.params[name] ?? '';
  // The record a PATCH's path names: its {id}, or the account itself (PATCH /accounts/<account>);
  // a path naming its record by an alias (an environment's code) leaves the check to the service.
  const patched = request.event.requestContext.http.method === 'PATCH' && !declaration.pathByAlias;
  const pathId = patched ? (request.params.id ?? request.account.id) : undefined;
  const requester: Requester = {
    account: request.account,
    environment: request.environment,
    scope: request.scope,
  };
  const actor = request.bearer
    ? { ...requester, bearer: request.bearer, asked: [] }
    : request.user
      ? { ...requester, user: request.user }
      : requester;
  return {
    actor: actor as Call<A, P, B, Q>['actor'],
    params,
    body: (declaration.body ? parseBody(request.body, declaration.body, pathId) : undefined) as B,
    query: (declaration.query ? parseQueryWith(request.query, declaration.query) : {}) as Q,
    page: declaration.paged ? pageRequest(request.query) : { mode: 'number', number: 1, size: 1 },
    request: { path: request.event.rawPath, query: request.query },
  };
}

/**
 * The handler of every request no route matches (API Gateway's `$default` route, the local
 * router's fallback): 404, signed when the path names an existing account, as every other answer
 * for it is; its body is the same whether the account exists or not.
 */
export function unmatched() {
  return traceable(NOT_FOUND_OPERATION)
    .use(respond())
    .handler(async (event) => {
      throw new ApiError(404, [{ detail: `No route matches ${event.requestContext.http.method} ${event.rawPath}`, code: 'NOT_FOUND' }]);
    });
}

/** The route table's name for the fallback (shared/routes.ts), which has no declaration of its own. */
const NOT_FOUND_OPERATION = 'notFound';

/** A pipeline whose first step is the trace when tracing is on: first in and last out, it spans every step and sees the rendered status. */
function traceable(operation: string) {
  const pipeline = middy<Event, Result, Error, PipelineContext>({ timeoutEarlyInMillis: 0 });
  if (tracer) pipeline.use(traceRequest(tracer, operation));
  return pipeline;
}

function traceRequest(active: Tracer, operation: string): Middleware {
  return traceInvocation(active, ({ context, response }) => ({
    operation,
    accountId: context.request?.account?.id,
    status: response?.statusCode,
  }));
}

function respond(): Middleware {
  return {
    before: ({ event, context }) => {
      const requestId = event.requestContext?.requestId ?? context.awsRequestId;
      context.request = {
        requestId,
        event,
        params: Object.fromEntries(Object.entries(event.pathParameters ?? {}).filter(([name]) => name !== 'account')) as Record<
          string,
          string
        >,
        query: {},
        body: { absent: true },
      };
    },
    after: async (request) => {
      if (request.response) request.response = await finished(request.context, request.response);
      logger.info('request', { ...logKeys(request.context), status: request.response?.statusCode });
    },
    onError: async (request) => {
      const error = toApiError(request.error);
      const requestId = requestIdOf(request.context);
      if (error instanceof ApiError) {
        logger.info('request', { ...logKeys(request.context), status: error.status, errors: error.errors.map((e) => e.code ?? e.detail) });
        request.response = renderError(request.context, error, requestId);
      } else {
        logger.error('unhandled error', { ...logKeys(request.context), error: error as Error });
        const internal = new ApiError(500, [{ detail: 'An unexpected error occurred', code: 'INTERNAL_ERROR' }]);
        request.response = renderError(request.context, internal, requestId);
      }
      request.response = await finished(request.context, request.response);
    },
  };
}

const requestIdOf = (context: PipelineContext) => context.request?.requestId ?? context.awsRequestId;

/**
 * The answer as it leaves: signed, and measured as Lambda counts it. One larger than
 * MAX_ANSWER_BYTES would fail as a 5xx once deployed (shared/http/answer-size.ts): 422
 * ANSWER_TOO_LARGE takes its place. Only reads can get here (a page of large records, a page of
 * events with large payloads, docs/rules.md §3.3): this comes after the handler, so a change it made
 * would stand, and an operation that changes something bounds its answer before committing it
 * (a check-out's file, shared/resources/check-out/service.ts).
 */
async function finished(context: PipelineContext, response: Result): Promise<Result> {
  const answer = await signed(context, response);
  const bytes = bytesOver(answer, MAX_ANSWER_BYTES);
  if (bytes === undefined) return answer;
  logger.warn('answer too large', { ...logKeys(context), status: answer.statusCode, bytes });
  const refusal = toApiError(
    new AnswerTooLarge(
      'ANSWER_TOO_LARGE',
      `The answer would be ${bytes} bytes, more than the ${MAX_ANSWER_BYTES} an answer may be: ask for less at once (a smaller page[size], fewer includes)`,
    ),
  ) as ApiError;
  return signed(context, renderError(context, refusal, requestIdOf(context)));
}

/** The answer signed by the account it is given for; unsigned when no existing account is named (there is no key). */
async function signed(context: PipelineContext, response: Result): Promise<Result> {
  const { event } = context.request ?? {};
  const account = await signer(context);
  return account && event ? signAnswer(response, event, account) : response;
}

/**
 * The account the answer is signed by: the one the account step resolved; else, for an answer
 * given before that step (a request no route matches, a body or media type refused), the account
 * the path names, looked up here. Not looked up again when the account step found none. A lookup
 * that fails leaves the answer unsigned, as a key that cannot be used does (signAnswer).
 */
async function signer(context: PipelineContext): Promise<Account | undefined> {
  const { account, accountSought, event } = context.request ?? {};
  if (account || accountSought || !event) return account;
  const named = accountNamed(event);
  if (named === undefined) return undefined;
  try {
    return await findAccount(named);
  } catch (error) {
    logger.error('the account of the answer could not be read to sign it', { ...logKeys(context), error: error as Error });
    return undefined;
  }
}

const ACCOUNT_PATH = /^\/v1\/accounts\/([^/]+)/;

/**
 * The id or slug of the account a request names: its route's `{account}`, or for a request no
 * route matches, the segment after `/v1/accounts/` (percent-decoded, as a route's parameter is).
 */
function accountNamed(event: Event): string | undefined {
  const given = event.pathParameters?.account;
  if (given !== undefined) return given;
  const segment = ACCOUNT_PATH.exec(event.rawPath ?? '')?.[1];
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * What each log line of a request carries. Passed per line rather than kept in the logger,
 * so requests served side by side (the local server) never mix their keys. No credential
 * is ever among them: the bearer is named by type and id.
 */
function logKeys(context: PipelineContext) {
  const request = context.request ?? {};
  return {
    requestId: request.requestId ?? context.awsRequestId,
    route: request.event?.routeKey,
    accountId: request.account?.id,
    environmentId: request.environment?.id,
    bearer: request.bearer ? `${request.bearer.type}/${request.bearer.id}` : undefined,
  };
}

/** Whether an operation answers with a file: its clients may then ask for that media type alone. */
const answersFile = (declaration: Declaration) => Object.values(declaration.answers).some((answer) => 'file' in answer);

function negotiate(file: boolean): Middleware {
  const accepted = [MEDIA_TYPE, 'application/json', ...(file ? [FILE_MEDIA_TYPE] : [])];
  return {
    before: ({ event, context }) => {
      // API Gateway passes bodies of up to 10 MB; the API reads 1 MB at most.
      if (bodyBytes(event.body, event.isBase64Encoded) > MAX_BODY_BYTES) throw bodyTooLarge();
      const headers = event.headers ?? {};
      const hasBody = event.body !== undefined && event.body !== '';
      const contentType = headers['content-type'];
      if (hasBody && contentType !== undefined && !isJsonMediaType(contentType)) {
        throw badRequest(`The media type '${contentType}' is not supported: send ${MEDIA_TYPE} or application/json`, {
          code: 'MIME_TYPE_INVALID',
          source: { header: 'Content-Type' },
        });
      }
      const accept = headers.accept;
      if (accept !== undefined && !admits(accept, accepted)) {
        throw badRequest(`The Accept header must admit ${accepted.join(' or ')}`, {
          code: 'MIME_TYPE_INVALID',
          source: { header: 'Accept' },
        });
      }
      context.request.body = readBody(event.body, event.isBase64Encoded);
    },
  };
}

/**
 * Reads together, in one BatchGetItem, what the following steps and the handler would
 * otherwise read one by one (see requestKeys).
 */
function readAhead(declaration: Declaration): Middleware {
  return {
    before: async ({ event, context }) => {
      const token = declaration.auth === 'bearer' ? bearerTokenKey(event.headers?.authorization) : undefined;
      const body = context.request.body ?? { absent: true };
      context.request.readAhead = await ReadAhead.of(requestKeys(event, token, body, declaration));
    },
  };
}

function resolveAccount(): Middleware {
  return {
    before: async ({ event, context }) => {
      const given = accountNamed(event) ?? '';
      context.request.accountSought = true;
      const account = await findAccount(given, context.request.readAhead);
      if (!account) throw new RecordNotFound('accounts', given);
      context.request.account = account;
      checkAcceptSignature(event, account.id);
    },
  };
}

const ADDRESS_WINDOW_SECONDS = 60;

/**
 * Counts the request against its source address as API Gateway saw the connection
 * (`requestContext.http.sourceIp`; an IPv6 address by its /64, see source-address.ts); headers
 * such as X-Forwarded-For are the client's to write and never name the address. The address is
 * kept as a digest.
 */
function limitAddress(operation: string): Middleware {
  return {
    before: async ({ event }) => {
      const client = clientOf(event.requestContext.http.sourceIp);
      await tallyHit(
        `ADDRESS#${operation}#${digest(client)}`,
        config.rateLimitPerAddress,
        ADDRESS_WINDOW_SECONDS,
        'Too many requests from this address; try again later',
      );
    },
  };
}

function selectEnvironment(): Middleware {
  return {
    before: async ({ event, context }) => {
      const request = context.request;
      const { id: accountId } = earlier(request.account, 'the account');
      const given = requestedEnvironment(event);
      if (given === undefined) {
        request.environment = null;
        request.scope = globalScope(accountId, request.readAhead);
        return;
      }
      if (typeof given !== 'string' || given.trim() === '') throw environmentInvalid('The environment cannot be blank');
      const environment = await findEnvironment(accountId, given.trim(), request.readAhead);
      const alias = secondEnvironmentHeader(event);
      if (alias !== undefined && (await findEnvironment(accountId, alias))?.id !== environment?.id) {
        throw badRequest('Service-Environment and Keygen-Environment name different environments: send one', {
          code: 'ENVIRONMENT_HEADER_CONFLICT',
          source: { header: 'Keygen-Environment' },
        });
      }
      if (!environment) throw environmentInvalid(`The environment '${given}' is not valid`);
      request.environment = environment;
      request.scope = environmentScope(accountId, environment, request.readAhead);
    },
  };
}

function authenticate(mode: AuthMode): Middleware {
  return {
    before: async ({ event, context }) => {
      const request = context.request;
      if (mode === 'none') return;
      const header = event.headers?.authorization;
      const account = earlier(request.account, 'the account');
      const scope = earlier(request.scope, 'the scope');
      const environment = request.environment ?? null;
      if (mode === 'basic') request.user = await authenticateBasic(header, account, environment, scope);
      else if (header !== undefined && /^License\s/i.test(header)) request.bearer = await authenticateLicenseKey(header, scope);
      else request.bearer = await authenticateToken(header, account, environment, request.readAhead);
    },
  };
}

function readQuery(): Middleware {
  return {
    before: ({ event, context }) => {
      context.request.query = parseQuery(event.rawQueryString);
    },
  };
}

function baseHeaders(context: PipelineContext, requestId: string): Record<string, string> {
  const headers: Record<string, string> = { 'Content-Type': MEDIA_TYPE, 'X-Request-Id': requestId };
  const environment = context.request?.environment;
  if (environment) headers['Service-Environment'] = environment.code;
  return headers;
}

function render(context: PipelineContext, given: Reply): Result {
  const { event, environment } = context.request;
  // Links are followed with the request's headers, never its query: a record outside the environment
  // they select names its own (linkedFrom, shared/jsonapi.ts).
  const reply = linkedReply(given, event && environmentHeader(event) !== undefined ? (environment?.id ?? null) : null);
  const headers = { ...baseHeaders(context, context.request.requestId ?? context.awsRequestId), ...reply.headers };
  if (reply.body === undefined && reply.raw === undefined) delete headers['Content-Type'];
  return {
    statusCode: reply.status,
    headers,
    body: reply.raw ?? (reply.body === undefined ? '' : JSON.stringify(reply.body)),
  };
}

function renderError(context: PipelineContext, error: ApiError, requestId: string): Result {
  return errorResult(error, requestId, baseHeaders(context, requestId));
}

/** A media type or range without its parameters, lower-cased. */
const mediaTypeOf = (value: string) => (value.split(';')[0] ?? '').trim().toLowerCase();

function isJsonMediaType(value: string): boolean {
  const type = mediaTypeOf(value);
  return type === MEDIA_TYPE || type === 'application/json';
}

/** Whether an Accept header admits one of the media types; the wildcards (all, or all of application) admit them all. */
function admits(accept: string, mediaTypes: readonly string[]): boolean {
  return accept.split(',').some((range) => ['*/*', 'application/*', ...mediaTypes].includes(mediaTypeOf(range)));
}

/** A value an earlier step of the pipeline sets: its absence would be a fault of the steps' order. */
function earlier<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`The pipeline reached a step that needs ${what} before it was resolved`);
  return value;
}
