/**
 * AWS X-Ray tracing through Powertools Tracer (docs/operations.md, "Tracing"): the stack turns it
 * on or off per deployment with POWERTOOLS_TRACE_ENABLED (lib/service-function.ts).
 *
 * The Tracer brings the X-Ray SDK, which on load starts an async hook for the whole process (every
 * promise pays for it). So the Tracer is imported only where it can trace: tracing turned on, in
 * a Lambda execution environment. Anywhere else (tracing off, `npm start`, the tests) `tracer` is
 * undefined and not one line of the SDK is loaded.
 */
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy, { type MiddlewareObj, type Request } from '@middy/core';
import type { Context } from 'aws-lambda';

/** The stack's switch, and the variable Lambda sets in every execution environment (Powertools' own test). */
const tracing = process.env.POWERTOOLS_TRACE_ENABLED === 'true' && Boolean(process.env.AWS_EXECUTION_ENV);

export const tracer: Tracer | undefined = tracing
  ? new (await import('@aws-lambda-powertools/tracer')).Tracer({
      serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'licensing',
      // The one outgoing HTTP request besides the AWS SDK's is the webhook POST, and the patch would
      // send the trace header to the customer's endpoint; the SDK's calls are traced per client.
      captureHTTPsRequests: false,
    })
  : undefined;

/** An AWS SDK client whose calls appear in the trace as subsegments; the client itself when not tracing. */
export function traced<Client>(client: Client): Client {
  return tracer ? tracer.captureAWSv3Client(client) : client;
}

/** What a traced invocation is searchable by in X-Ray (annotations are indexed, metadata is not). */
export interface TraceAnnotations {
  operation: string;
  accountId?: string;
  status?: number;
}

/**
 * One `## handler` subsegment per invocation (Powertools' middy middleware), annotated as
 * `annotationsOf` says once the invocation has answered. A reply the API gives on purpose (a 4xx)
 * closes the subsegment like any answer: only an error the function did not expect, or a 5xx,
 * marks the trace as a fault. Responses are never recorded: they carry keys and tokens.
 */
export function traceInvocation<Event, Result, Ctx extends Context>(
  active: Tracer,
  annotationsOf: (request: Request<Event, Result, Error, Ctx>) => TraceAnnotations,
): MiddlewareObj<Event, Result, Error, Ctx> {
  const captured = captureLambdaHandler(active, { captureResponse: false });
  const annotate = (request: Request<Event, Result, Error, Ctx>) => {
    for (const [key, value] of Object.entries(annotationsOf(request))) {
      if (value !== undefined) active.putAnnotation(key, value);
    }
  };
  return {
    before: (request) => {
      captured.before?.(request);
    },
    after: (request) => {
      annotate(request);
      captured.after?.(request);
    },
    onError: (request) => {
      annotate(request);
      const status = statusOf(request.response);
      if (status !== undefined && status < 500) captured.after?.(request);
      else captured.onError?.(request);
    },
  };
}

/** A queue worker's handler, traced as `traceInvocation` traces the API's; the handler itself when not tracing. */
export function tracedWorker<Event, Result>(operation: string, handler: (event: Event, context: Context) => Promise<Result>) {
  if (!tracer) return handler;
  // No early timeout: a worker keeps the time limits it has untraced.
  return middy(handler, { timeoutEarlyInMillis: 0 }).use(traceInvocation<Event, Result, Context>(tracer, () => ({ operation })));
}

/** The status of an HTTP answer; undefined for anything else (a worker's batch response). */
function statusOf(response: unknown): number | undefined {
  if (typeof response !== 'object' || response === null || !('statusCode' in response)) return undefined;
  return typeof response.statusCode === 'number' ? response.statusCode : undefined;
}
