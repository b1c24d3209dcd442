/**
 * Cold start: every handler bundled exactly as the stack bundles it (lib/service-function.ts:
 * esbuild, ESM, minified, source maps without sources, the createRequire banner, the SDK
 * bundled with the credential chain Lambda uses, Node 22), then, each in a fresh Node process
 * set up as a Lambda execution environment, the time to import the bundle and answer a first
 * event, with tracing off and on, against a minimal middy handler that imports the same SDK
 * clients and answers with one GetItem. With tracing on, a UDP socket stands in for the X-Ray
 * daemon and counts what each invocation sends.
 */
import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { REPOSITORY_ROOT } from '#dev/local/stack.ts';
import { fallback, routes, workers } from '#shared/routes.ts';
import { entryFile } from '../../lib/handler-entry.ts';
import { STACK_BUILD_OPTIONS } from '../support/bundling.ts';
import type { Measurement, Section } from './report.ts';
import { type BenchContext, benchAccount, fmt, median } from './support.ts';

const run = promisify(execFile);
const SIZE_BUDGET = 500 * 1024;
const TIME_FACTOR = 1.5;
/** The minimal handler's own figure, shown for reference: the median of this many runs alone. Handlers are judged against the run beside theirs. */
const BASELINE_RUNS = 9;
/** Pairs (a run of the minimal handler, then one of the handler) each handler is judged by. */
const PAIRS = 3;

/** What Lambda sets in every execution environment, as far as the bundles read it. */
const LAMBDA_ENVIRONMENT = {
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
  AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  LAMBDA_TASK_ROOT: '/var/task',
  _HANDLER: 'index.handler',
};

type Tracing = 'off' | 'on';

/** What the stack sets (POWERTOOLS_TRACE_ENABLED) and, with tracing on, Lambda adds: a sampled trace and the daemon's address. */
function tracingEnvironment(tracing: Tracing, daemonPort: number): Record<string, string> {
  if (tracing === 'off') return { POWERTOOLS_TRACE_ENABLED: 'false' };
  return {
    POWERTOOLS_TRACE_ENABLED: 'true',
    _X_AMZN_TRACE_ID: 'Root=1-6650f1a0-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=1',
    AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemonPort}`,
  };
}

/**
 * The smallest handler that does what every API function does: middy around one GetItem, traced
 * when tracing is on, with the Tracer loaded only then (as shared/tracer.ts does).
 */
const MINIMAL = `
import middy from '@middy/core';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
const tracer = process.env.POWERTOOLS_TRACE_ENABLED === 'true' ? new (await import('@aws-lambda-powertools/tracer')).Tracer() : undefined;
const traced = (client) => (tracer ? tracer.captureAWSv3Client(client) : client);
const db = DynamoDBDocumentClient.from(traced(new DynamoDBClient({})));
export const sqs = traced(new SQSClient({}));
const pipeline = middy();
if (tracer) pipeline.use(captureLambdaHandler(tracer, { captureResponse: false }));
export const handler = pipeline.handler(async (event) => {
  const { Item } = await db.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { PK: 'ACCOUNT#' + event.pathParameters.account, SK: '#' }, ConsistentRead: true }));
  return { statusCode: Item ? 200 : 404, body: JSON.stringify(Item ?? null) };
});
`;

/** Imports a bundle and calls its handler once, in this fresh process; prints the timings. */
const PROBE = `
const started = performance.now();
const module = await import(process.env.BENCH_BUNDLE);
const imported = performance.now();
const event = JSON.parse(process.env.BENCH_EVENT);
const context = { awsRequestId: 'cold', functionName: 'cold', getRemainingTimeInMillis: () => 10000, callbackWaitsForEmptyEventLoop: true };
const result = await module.handler(event, context);
const answered = performance.now();
process.stdout.write(JSON.stringify({ importMs: imported - started, firstMs: answered - imported, status: result?.statusCode ?? null }));
// Timed already: a moment for the trace's datagrams to leave before the process ends.
if (process.env.POWERTOOLS_TRACE_ENABLED === 'true') await new Promise((resolve) => setTimeout(resolve, 50));
process.exit(0);
`;

function apiEvent(accountId: string) {
  return {
    version: '2.0',
    routeKey: 'GET /v1/accounts/{account}/components/{id}',
    rawPath: `/v1/accounts/${accountId}/components/00000000-0000-4000-8000-000000000000`,
    rawQueryString: '',
    headers: { accept: 'application/vnd.api+json' },
    pathParameters: { account: accountId, id: '00000000-0000-4000-8000-000000000000' },
    requestContext: {
      requestId: 'cold',
      http: { method: 'GET', path: '/', sourceIp: '127.0.0.1', protocol: 'HTTP/1.1', userAgent: 'bench' },
      routeKey: 'GET',
      stage: '$default',
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
  };
}

async function coldRun(
  bundle: string,
  event: unknown,
  environment: Record<string, string>,
): Promise<{ ms: number; status: number | null }> {
  const { stdout } = await run(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', PROBE], {
    env: {
      ...process.env,
      ...LAMBDA_ENVIRONMENT,
      ...environment,
      BENCH_BUNDLE: pathToFileURL(bundle).href,
      BENCH_EVENT: JSON.stringify(event),
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      NODE_OPTIONS: '',
    },
    timeout: 30_000,
  });
  const { importMs, firstMs, status } = JSON.parse(stdout) as { importMs: number; firstMs: number; status: number | null };
  return { ms: importMs + firstMs, status };
}

/** Subsegments the stand-in X-Ray daemon received: the handlers' and the AWS calls'. */
interface DaemonCount {
  handler: number;
  aws: number;
}

/** A UDP socket on the loopback in place of the X-Ray daemon, counting the subsegments sent to it. */
async function startDaemon() {
  const socket = createSocket('udp4');
  const count: DaemonCount = { handler: 0, aws: 0 };
  socket.on('message', (message) => {
    // A header line, then one subsegment.
    const subsegment = JSON.parse(message.toString().split('\n')[1] ?? '{}') as { name?: string; namespace?: string };
    if (subsegment.name === '## index.handler') count.handler++;
    else if (subsegment.namespace === 'aws') count.aws++;
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { port: (socket.address() as AddressInfo).port, count, stop: () => socket.close() };
}

interface ColdResult {
  ms: number;
  status: number | null;
}

/** A handler's cold start against the minimal handler's run just before it, in the same mode. */
interface PairedResult extends ColdResult {
  ratio: number;
  /** What the handler's own run sent the stand-in X-Ray daemon: its handler and AWS call subsegments. */
  sent: { handler: number; aws: number };
}

export async function coldStartSection(_context: BenchContext): Promise<Section> {
  const account = await benchAccount();
  const dir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  const daemon = await startDaemon();
  try {
    // Each function's entry as the stack writes it (lib/handler-entry.ts), named by its operation.
    const functions = [...routes, fallback, ...workers];
    const workerOperations = new Set(workers.map((worker) => worker.operation));
    const handlers = functions.map((fn) => fn.operation);
    const outFor = (handler: string) => join(dir, `${handler}.mjs`);
    const bundleStarted = performance.now();
    // One esbuild call, one independent bundle per entry point (no code splitting), as per function.
    await build({
      ...STACK_BUILD_OPTIONS,
      entryPoints: Object.fromEntries(
        functions.map((fn) => [fn.operation, entryFile(REPOSITORY_ROOT, join(dir, 'entries'), fn.operation, fn.handler)]),
      ),
      outdir: dir,
      outExtension: { '.js': '.mjs' },
    });
    await build({
      ...STACK_BUILD_OPTIONS,
      stdin: { contents: MINIMAL, resolveDir: REPOSITORY_ROOT, sourcefile: 'minimal.ts', loader: 'ts' },
      outfile: join(dir, 'minimal.mjs'),
    });
    const bundleSeconds = (performance.now() - bundleStarted) / 1000;

    const event = apiEvent(account.id);
    const sqsEvent = { Records: [] };
    const eventFor = (handler: string) => (workerOperations.has(handler) ? sqsEvent : event);
    const environments: Record<Tracing, Record<string, string>> = {
      off: tracingEnvironment('off', daemon.port),
      on: tracingEnvironment('on', daemon.port),
    };

    // The reference, in each mode: every handler is held to the minimal handler traced as it is.
    const baselineRuns: Record<Tracing, number[]> = { off: [], on: [] };
    for (let i = 0; i < BASELINE_RUNS; i++) {
      for (const tracing of ['off', 'on'] as const) {
        baselineRuns[tracing].push((await coldRun(join(dir, 'minimal.mjs'), event, environments[tracing])).ms);
      }
    }
    const baseline: Record<Tracing, number> = { off: median(baselineRuns.off), on: median(baselineRuns.on) };
    const baselineSize = statSync(join(dir, 'minimal.mjs')).size;

    // Each handler's run follows a run of the minimal handler in the same mode, and the handler is
    // judged by the median ratio of PAIRS such pairs, so neither a drift of the machine's load nor
    // one slow reference run decides its figure.
    // The datagrams a run sent leave before its process ends; a moment for this process to read them.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
    const pair = async (handler: string, tracing: Tracing): Promise<PairedResult> => {
      const reference = await coldRun(join(dir, 'minimal.mjs'), event, environments[tracing]);
      await settle();
      const before = { ...daemon.count };
      const result = await coldRun(outFor(handler), eventFor(handler), environments[tracing]);
      await settle();
      return {
        ...result,
        ratio: result.ms / reference.ms,
        sent: { handler: daemon.count.handler - before.handler, aws: daemon.count.aws - before.aws },
      };
    };
    const measure = async (handler: string, tracing: Tracing): Promise<PairedResult> => {
      const pairs: PairedResult[] = [];
      for (let i = 0; i < PAIRS; i++) pairs.push(await pair(handler, tracing));
      const first = pairs[0] as PairedResult;
      return { ...first, ms: median(pairs.map((p) => p.ms)), ratio: median(pairs.map((p) => p.ratio)) };
    };
    const results: { handler: string; size: number; off: PairedResult; on: PairedResult; tracer: boolean; traced: boolean }[] = [];
    for (const handler of handlers) {
      const off = await measure(handler, 'off');
      const on = await measure(handler, 'on');
      // The plain pages (the reset form, the reference) make no AWS call and carry no tracer: Lambda's own segments trace them.
      const tracer = readFileSync(outFor(handler), 'utf8').includes('POWERTOOLS_TRACE_ENABLED');
      results.push({ handler, size: statSync(outFor(handler)).size, off, on, tracer, traced: on.sent.handler > 0 });
    }

    const kb = (bytes: number) => `${fmt(bytes / 1024)} KB`;
    const rows: Measurement[] = (['off', 'on'] as const).map((tracing) => ({
      what: `Minimal middy handler (DynamoDB, document and SQS clients, the Tracer; one GetItem), tracing ${tracing}`,
      figure: `${kb(baselineSize)}, ${fmt(baseline[tracing])} ms (median of ${BASELINE_RUNS}; runs ${baselineRuns[tracing].map((n) => fmt(n)).join(', ')})`,
      budget: 'reference',
    }));
    const sizes = results.map((r) => r.size);
    const largest = [...results].sort((a, b) => b.size - a.size)[0]!;
    rows.push({
      what: `All ${results.length} handlers: size (median, largest)`,
      figure: `${kb(median(sizes))}, ${kb(largest.size)} (${largest.handler})`,
      budget: '≤ 500 KB each',
      met: sizes.every((s) => s <= SIZE_BUDGET),
    });
    for (const tracing of ['off', 'on'] as const) {
      const ratios = results.map((r) => r[tracing].ratio);
      const slowest = [...results].sort((a, b) => b[tracing].ratio - a[tracing].ratio)[0]!;
      rows.push({
        what: `All ${results.length} handlers, tracing ${tracing}: import + first event against the minimal handler's run beside it (median, slowest)`,
        figure: `${fmt(median(ratios), 2)} × (${fmt(median(results.map((r) => r[tracing].ms)))} ms), ${fmt(slowest[tracing].ratio, 2)} × (${fmt(slowest[tracing].ms)} ms, ${slowest.handler})`,
        budget: `≤ ${TIME_FACTOR} × minimal, tracing ${tracing}, each`,
        met: ratios.every((r) => r <= TIME_FACTOR),
      });
    }
    const sum = (values: number[]) => values.reduce((total, n) => total + n, 0);
    const withTracer = results.filter((r) => r.tracer);
    const traced = results.filter((r) => r.traced);
    const changed = results.filter((r) => r.on.status !== r.off.status).map((r) => r.handler);
    rows.push({
      what: 'Tracing on: what reached the stand-in X-Ray daemon',
      figure: `${sum(results.map((r) => r.on.sent.handler))} handler subsegments, from ${traced.length} of the ${withTracer.length} handlers that carry the tracer (the other ${results.length - withTracer.length} are plain pages); ${sum(results.map((r) => r.on.sent.aws))} AWS call subsegments; first answers ${changed.length ? `changed: ${changed.join(', ')}` : 'as with tracing off'}`,
      budget: 'every handler with the tracer traced, every answer unchanged',
      met: traced.length === withTracer.length && traced.every((r) => r.tracer) && changed.length === 0,
    });
    for (const r of results) {
      const over = r.size > SIZE_BUDGET || r.off.ratio > TIME_FACTOR || r.on.ratio > TIME_FACTOR;
      rows.push({
        what: r.handler,
        figure: `${kb(r.size)}; off ${fmt(r.off.ms)} ms (${fmt(r.off.ratio, 2)} ×), on ${fmt(r.on.ms)} ms (${fmt(r.on.ratio, 2)} ×); first answer ${r.off.status ?? 'batch'}`,
        budget: `≤ 500 KB; ≤ ${TIME_FACTOR} × minimal`,
        met: !over,
      });
    }
    return {
      title: 'Cold start',
      method: `Every handler of the route table and the queue workers, bundled with esbuild with the options the stack's NodejsFunction uses (ESM, minified, source maps without sources, the createRequire banner, the SDK bundled with the credential chain Lambda uses, target node22; ${bundleSeconds.toFixed(1)} s for all). Each bundle is imported in a fresh \`node --enable-source-maps\` process with the variables Lambda sets, which then calls its handler once: API handlers with a GET event for an existing account and no credentials (the account read, then 401), workers with an empty batch. Each handler runs with tracing off (\`POWERTOOLS_TRACE_ENABLED=false\`), then on (\`true\`, a sampled trace id, and a UDP socket on the loopback standing in for the X-Ray daemon). The figure is import plus first answer, measured inside the process (Node's own start-up excluded; it is the same for all). Each handler is measured in ${PAIRS} pairs, each a run of the minimal handler in the same mode then one of the handler, and judged by the median ratio of its pairs, so that neither a drift of the machine's load nor one slow reference run decides its figure. The minimal handler's own figure is the median of its runs alone.`,
      rows,
      notes: NOTES,
    };
  } finally {
    daemon.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const NOTES = [
  "Sizes: an API bundle is about 400–450 KB: the SDK clients the minimal handler also carries are about 205 KB, the X-Ray SDK with Powertools Tracer about 118 KB, Powertools Logger about 25 KB, zod about 18 KB and the service's own code about 40 KB. The X-Ray SDK is CommonJS and does not tree-shake: bundled as it came, it took the largest bundle from 469 KB to 595 KB and 76 of 80 bundles over budget. What made the room: the SDK's default credential chain is bundled as its first link only, the environment variables Lambda sets (shared/lambda-credentials.ts, an esbuild alias in lib/service-function.ts); its other links and the STS and SSO clients they carry were about 90–130 KB of every bundle. The minimal handler is bundled the same way and, like every function, carries the Tracer (loaded only with tracing on): what any function of the service must carry, about the 362 KB it was before tracing.",
  'The schemas are built with `zod/mini`, whose functions let esbuild keep only the schemas and checks in use; read-only handlers carry zod too, because their service module declares the create and update bodies at load. The largest validate and change licenses (the licensing graph, the check of a standing, signing); among the workers, the password-reset worker adds the SES client and the KMS client that seals the reset token, the delivery worker Powertools batch and the KMS client that unseals secret event meta.',
  "Tracing: shared/tracer.ts imports the Tracer, and with it the X-Ray SDK, only when tracing is on in a Lambda execution environment, so with tracing off a bundle carries the SDK but never runs it (no async hook, nothing sent). With tracing on, the SDK loads at init and each invocation opens, annotates and sends its subsegments: the difference between the minimal handler's two rows is what tracing costs any function, and each handler is held to the minimal handler in its own mode.",
  'The API reference page (`page` in shared/resources/reference/pages.ts) serves the page `npm run docs` rendered, compressed beside its module (about 2 ms to decompress), rather than rendering the 2 MB page when its function starts; the plain pages carry no tracer. The routes counted per source address (passwords.request, tokens.generate, licenses.validateKey) count in the container (shared/store/rate-limit.ts): no round trip more than the minimal handler before their first answer.',
  "Time: import and first answer grow with the JavaScript a bundle parses. On a loaded machine single runs vary by ±50 ms or more (see the minimal handler's own runs), which is why each handler is judged by the median of three pairs, each against a run of the minimal handler just before its own; the load average in the heading says how far a run can be trusted.",
].join('\n');
