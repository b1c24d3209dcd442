/**
 * Every failure the API reports is an ApiError: the pipeline's own (media types, body shape,
 * environment) or a fault of the service mapped by `toApiError`. The pipeline's error handler
 * turns it into a JSON:API error document; anything else becomes a 500 that shows no internals.
 */
import { config } from '../config.ts';
import {
  ActionRefused,
  AnswerTooLarge,
  Conflict,
  InputInvalid,
  LimitReached,
  type LimitState,
  NotAuthenticated,
  RuleBroken,
} from '../errors.ts';
import { RecordNotFound, storageLimitOf } from '../store/errors.ts';

export interface ErrorSource {
  pointer?: string;
  parameter?: string;
  header?: string;
}

export interface ErrorObject {
  title: string;
  detail: string;
  code?: string;
  source?: ErrorSource;
}

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Access denied',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  431: 'Request header fields too large',
  422: 'Unprocessable resource',
  429: 'Too many requests',
  500: 'Internal server error',
};

export class ApiError extends Error {
  readonly status: number;
  readonly errors: ErrorObject[];
  readonly headers: Record<string, string>;

  constructor(status: number, errors: Omit<ErrorObject, 'title'>[], headers: Record<string, string> = {}) {
    super(errors.map((e) => e.detail).join('; '));
    this.name = 'ApiError';
    this.status = status;
    this.errors = errors.map((e) => ({ title: TITLES[status] ?? 'Error', ...e }));
    this.headers = headers;
  }
}

type Detail = { detail: string; code?: string; source?: ErrorSource };

export const badRequest = (detail: string, extra: Omit<Detail, 'detail'> = {}) => new ApiError(400, [{ detail, ...extra }]);

/** A request body over the limit (MAX_BODY_BYTES). */
export const payloadTooLarge = (detail: string) => new ApiError(413, [{ detail, code: 'PAYLOAD_TOO_LARGE' }]);

/** Where a rate limit stands, as the `X-RateLimit-*` headers tell it. */
export const rateLimitHeaders = (limit: LimitState) => ({
  'X-RateLimit-Limit': String(limit.limit),
  'X-RateLimit-Remaining': String(limit.remaining),
  'X-RateLimit-Reset': String(limit.resetAt),
});

/**
 * The one mapping of the service's faults (shared/errors.ts, the store's) to the API's errors;
 * anything else is not the request's fault and stays as it is (a 500).
 */
export function toApiError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  if (error instanceof RuleBroken)
    return new ApiError(422, [
      { detail: error.message, code: error.code, ...(error.pointer ? { source: { pointer: error.pointer } } : {}) },
    ]);
  if (error instanceof RecordNotFound) return new ApiError(404, [{ detail: error.message, code: 'NOT_FOUND' }]);
  if (error instanceof ActionRefused) return new ApiError(403, [{ detail: error.message, ...(error.code ? { code: error.code } : {}) }]);
  if (error instanceof Conflict)
    return new ApiError(409, [{ detail: error.message, code: error.code, ...(error.source ? { source: error.source } : {}) }]);
  if (error instanceof NotAuthenticated) {
    const challenge: Record<string, string> = error.challenge
      ? { 'WWW-Authenticate': `${error.challenge} realm="${config.serviceName}"` }
      : {};
    return new ApiError(401, [{ detail: error.message, code: error.code, ...(error.source && { source: error.source }) }], challenge);
  }
  if (error instanceof LimitReached) {
    return new ApiError(429, [{ detail: error.message, code: 'TOO_MANY_REQUESTS' }], {
      'Retry-After': String(Math.max(1, error.state.resetAt - Math.floor(Date.now() / 1000))),
      ...rateLimitHeaders({ ...error.state, remaining: 0 }),
    });
  }
  // 422 rather than a 5xx: the size follows from what the request asks for, and a retry of it as
  // it stands (which clients and monitoring expect of a 5xx) fails the same way.
  if (error instanceof AnswerTooLarge)
    return new ApiError(422, [{ detail: error.message, code: error.code, ...(error.source ? { source: error.source } : {}) }]);
  if (error instanceof InputInvalid)
    return new ApiError(400, [{ detail: error.message, code: error.code, ...(error.source ? { source: error.source } : {}) }]);
  // A limit of the table reached by the request's values (a read's key included): its fault, told
  // plainly. Named here, at the pipeline's error boundary, rather than at each store call: every
  // store call a request makes (a Transaction's commit, a single write, a count, a read by a key
  // the request gave), whichever module makes it, fails through here once, so a call added later
  // cannot miss it; the Transaction only names the failed conditions it alone can tell apart.
  const limit = storageLimitOf(error);
  if (limit?.limit === 'size') return new ApiError(422, [{ detail: limit.message, code: 'RECORD_TOO_LARGE' }]);
  if (limit) return new ApiError(400, [{ detail: limit.message, code: 'VALUE_NOT_STORABLE' }]);
  return error;
}

export const MEDIA_TYPE = 'application/vnd.api+json';

/**
 * An error as the API answers it: `{meta: {id}, errors}` and no data, in the API's media type,
 * with the request id (and whatever headers the caller adds, e.g. the environment's code).
 */
export function errorResult(error: ApiError, requestId: string, headers: Record<string, string> = {}) {
  return {
    statusCode: error.status,
    headers: { 'Content-Type': MEDIA_TYPE, 'X-Request-Id': requestId, ...headers, ...error.headers },
    body: JSON.stringify({ meta: { id: requestId }, errors: error.errors }),
  };
}

export const environmentInvalid = (detail: string) =>
  new ApiError(400, [{ detail, code: 'ENVIRONMENT_INVALID', source: { header: 'Service-Environment' } }]);
