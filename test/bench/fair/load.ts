/**
 * The load generator, in a process of its own: autocannon against one case (LOAD_SPEC, JSON),
 * printing one line `LOAD_RESULT {...}`. A case with `fresh` gets a new body per request, made
 * from `body` by replacing every `{uuid}` (autocannon's own id replacement miscounts
 * Content-Length).
 */
import { randomUUID } from 'node:crypto';
// autocannon ships no types.
// @ts-expect-error untyped package
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  fresh?: boolean;
  connections: number;
  seconds: number;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  failed: number;
}

const spec = JSON.parse(process.env.LOAD_SPEC ?? 'null') as LoadSpec | null;
if (!spec) throw new Error('LOAD_SPEC is required');
const body = spec.body;
const result = await autocannon({
  url: spec.url,
  method: spec.method ?? 'GET',
  headers: spec.headers,
  body,
  ...(spec.fresh && body
    ? {
        requests: [{ setupRequest: (request: Record<string, unknown>) => ({ ...request, body: body.replaceAll('{uuid}', randomUUID()) }) }],
      }
    : {}),
  connections: spec.connections,
  duration: spec.seconds,
});
const outcome: LoadResult = {
  requests: result.requests.total,
  rps: result.requests.average,
  p50: result.latency.p50,
  p99: result.latency.p99,
  ok: result['2xx'],
  failed: result.non2xx + result.errors + result.timeouts,
};
process.stdout.write(`LOAD_RESULT ${JSON.stringify(outcome)}\n`);
