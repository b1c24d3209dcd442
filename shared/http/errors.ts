/**
 * Every failure the API reports is an ApiError. The pipeline's error handler turns it into a
 * JSON:API error document; anything else becomes a 500 that shows no internals.
 */

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

export const badRequest = (detail: string, extra: Omit<Detail, 'detail'> = {}) =>
  new ApiError(400, [{ detail, ...extra }]);

/** A wrong body shape: missing key, unpermitted key, wrong type, blank string. */
export const invalidParameter = (pointer: string, detail: string) =>
  new ApiError(400, [{ detail, code: 'PARAMETER_INVALID', source: { pointer } }]);

export const invalidQuery = (parameter: string, detail: string) =>
  new ApiError(400, [{ detail, code: 'PARAMETERS_INVALID', source: { parameter } }]);

export const unauthorized = (code: string, detail: string, headers: Record<string, string> = {}) =>
  new ApiError(401, [{ detail, code }], headers);

export const forbidden = (detail: string) => new ApiError(403, [{ detail }]);

export const notFound = (type: string, id: string) =>
  new ApiError(404, [{ detail: `The requested ${type} '${id}' was not found`, code: 'NOT_FOUND' }]);

/** A broken model rule: `<ATTRIBUTE>_<KIND>` with a pointer into the body. */
export const unprocessable = (code: string, detail: string, pointer?: string) =>
  new ApiError(422, [{ detail, code, ...(pointer ? { source: { pointer } } : {}) }]);

/** A request body over the limit (MAX_BODY_BYTES), or values too large for the table to store. */
export const payloadTooLarge = (detail: string) => new ApiError(413, [{ detail, code: 'PAYLOAD_TOO_LARGE' }]);

/** Where a rate limit stands, as the `X-RateLimit-*` headers tell it. */
export const rateLimitHeaders = (limit: { limit: number; remaining: number; resetAt: number }) => ({
  'X-RateLimit-Limit': String(limit.limit),
  'X-RateLimit-Remaining': String(limit.remaining),
  'X-RateLimit-Reset': String(limit.resetAt),
});

/** 429 for a limit reached: when to try again, and the limit's headers. */
export const tooManyRequests = (detail: string, limit: { limit: number; resetAt: number }) =>
  new ApiError(429, [{ detail, code: 'TOO_MANY_REQUESTS' }], {
    'Retry-After': String(Math.max(1, limit.resetAt - Math.floor(Date.now() / 1000))),
    ...rateLimitHeaders({ ...limit, remaining: 0 }),
  });

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

/** The record changed between reading and writing it (a concurrent request won): retry. */
export const conflict = (detail: string) => new ApiError(409, [{ detail, code: 'CONFLICT' }]);

export const environmentInvalid = (detail: string) =>
  new ApiError(400, [{ detail, code: 'ENVIRONMENT_INVALID', source: { header: 'Service-Environment' } }]);
