/**
 * Tracing (shared/tracer.ts). Off (here, the local stack, a stack deployed with `tracing=false`):
 * the X-Ray SDK is never loaded, and clients and workers are left as they are. On, in a Lambda
 * execution environment imitated by its variables, with a UDP socket standing in for the X-Ray
 * daemon and the run's DynamoDB Local as the table: each invocation sends its `## index.handler`
 * subsegment, annotated, with its AWS calls inside; a 4xx the API answers on purpose is no fault,
 * an unexpected error is, and no response is ever recorded.
 */
import { createSocket, type Socket } from 'node:dgram';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Reply } from '#shared/http/documents.ts';
import type { RequestContext } from '#shared/http/pipeline.ts';

const xraySdkLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('aws-xray-sdk-core'));

describe('tracing off', () => {
  it('loads no X-Ray SDK and leaves clients and workers as they are', async () => {
    const { tracer, traced, tracedWorker } = await import('#shared/tracer.ts');
    expect(tracer).toBeUndefined();
    const client = new SQSClient({});
    expect(traced(client)).toBe(client);
    const handler = async () => ({ batchItemFailures: [] });
    expect(tracedWorker('workers.example', handler)).toBe(handler);
    expect(xraySdkLoaded()).toBe(false);
  });
});

/** The part of a subsegment document these tests read. */
interface Subsegment {
  id: string;
  name: string;
  parent_id?: string;
  namespace?: string;
  annotations?: Record<string, unknown>;
  metadata?: unknown;
  fault?: boolean;
  error?: boolean;
  aws?: { operation?: string };
}

describe('tracing on, in Lambda', () => {
  const TRACE_ID = '1-6650f1a0-0123456789abcdef01234567';
  // What Lambda passes, plus the request the pipeline fills in (its own context type).
  const context = { awsRequestId: 'invocation', request: {} } as Context & { request: Partial<RequestContext> };
  const daemon: Socket = createSocket('udp4');
  const sent: Subsegment[] = [];
  let tracing: typeof import('#shared/tracer.ts');
  let pipeline: typeof import('#shared/http/pipeline.ts');
  let accountId: string;

  beforeAll(async () => {
    // Each datagram is a header line, then one subsegment.
    daemon.on('message', (message) => sent.push(JSON.parse(message.toString().split('\n')[1] ?? 'null') as Subsegment));
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
    vi.stubEnv('POWERTOOLS_TRACE_ENABLED', 'true');
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'SILENT');
    vi.stubEnv('AWS_EXECUTION_ENV', 'AWS_Lambda_nodejs22.x');
    vi.stubEnv('LAMBDA_TASK_ROOT', '/var/task');
    vi.stubEnv('_HANDLER', 'index.handler');
    vi.stubEnv('_X_AMZN_TRACE_ID', `Root=${TRACE_ID};Parent=53995c3f42cd8ad8;Sampled=1`);
    vi.stubEnv('AWS_XRAY_DAEMON_ADDRESS', `127.0.0.1:${(daemon.address() as AddressInfo).port}`);
    // The modules again, now that they see a Lambda function with tracing on.
    vi.resetModules();
    tracing = await import('#shared/tracer.ts');
    pipeline = await import('#shared/http/pipeline.ts');
    const { createAccount } = await import('#shared/resources/accounts/service.ts');
    const slug = `tracing-${Date.now()}`;
    ({
      account: { id: accountId },
    } = await createAccount({ slug, name: 'Tracing', email: `admin@${slug}.example`, password: 'a long password' }));
  });

  afterAll(() => {
    vi.unstubAllEnvs();
    daemon.close();
  });

  const declaration = {
    operation: 'tracing.probe',
    method: 'GET',
    path: '/v1/accounts/{account}/probe',
    access: [],
    summary: 'Answers as told',
    auth: 'none',
    params: [],
    answers: {},
  } as const;
  const event = (account: string) =>
    ({
      version: '2.0',
      routeKey: 'GET /v1/accounts/{account}/probe',
      rawPath: `/v1/accounts/${account}/probe`,
      rawQueryString: '',
      headers: {},
      pathParameters: { account },
      requestContext: { requestId: 'request', http: { method: 'GET', path: '/', sourceIp: '127.0.0.1' } },
      isBase64Encoded: false,
    }) as unknown as APIGatewayProxyEventV2;

  /** Runs one invocation; the subsegments it sent: its own first, then those inside it. */
  async function traceOf(invoke: () => Promise<unknown>): Promise<{ handler: Subsegment; inside: Subsegment[] }> {
    sent.length = 0;
    await invoke();
    const handler = await vi.waitFor(() => {
      const found = sent.find((subsegment) => subsegment.name === '## index.handler');
      if (!found) throw new Error('no handler subsegment yet');
      return found;
    });
    return { handler, inside: sent.filter((subsegment) => subsegment.parent_id === handler.id) };
  }

  it('is on', () => {
    expect(tracing.tracer?.isTracingEnabled()).toBe(true);
  });

  it('annotates an answer with the operation, the account and the status, and records its reads but never its body', async () => {
    const secret: Reply = { status: 200, body: { meta: { token: 'secret-token' } } };
    const { handler, inside } = await traceOf(() => pipeline.operation(declaration, async () => secret)(event(accountId), context));
    expect(handler.annotations).toMatchObject({ operation: 'tracing.probe', accountId, status: 200 });
    expect(handler.fault ?? false).toBe(false);
    expect(inside).toContainEqual(
      expect.objectContaining({ name: 'DynamoDB', namespace: 'aws', aws: expect.objectContaining({ operation: 'BatchGetItem' }) }),
    );
    expect(JSON.stringify(sent)).not.toContain('secret-token');
    expect(handler.metadata).toBeUndefined();
  });

  it('takes a 4xx the API answers on purpose for no fault', async () => {
    const { handler } = await traceOf(() => pipeline.unmatched()(event(accountId), context));
    expect(handler.annotations).toMatchObject({ operation: 'notFound', status: 404 });
    expect(handler).not.toHaveProperty('fault');
    expect(handler).not.toHaveProperty('error');
  });

  it('marks an unexpected error as a fault, while the pipeline still answers 500', async () => {
    const failing = pipeline.operation(declaration, async () => {
      throw new Error('the handler broke');
    });
    const { handler } = await traceOf(async () => expect(await failing(event(accountId), context)).toMatchObject({ statusCode: 500 }));
    expect(handler.annotations).toMatchObject({ operation: 'tracing.probe', accountId, status: 500 });
    expect(handler.fault).toBe(true);
  });

  it('traces a worker’s invocation with the AWS calls it makes', async () => {
    const sqs = tracing.traced(
      new SQSClient({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
    );
    const worker = tracing.tracedWorker('workers.example', async () => {
      await sqs.send(new SendMessageCommand({ QueueUrl: 'http://127.0.0.1:9/queue', MessageBody: '{}' })).catch(() => undefined);
      return { batchItemFailures: [] };
    });
    const { handler, inside } = await traceOf(() => worker({}, context));
    expect(handler.annotations).toMatchObject({ operation: 'workers.example' });
    expect(inside).toEqual([
      expect.objectContaining({ name: 'SQS', namespace: 'aws', aws: expect.objectContaining({ operation: 'SendMessage' }) }),
    ]);
  });
});
