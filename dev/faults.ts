/**
 * Fault injection into the service's AWS clients (docs/operations.md, "Testing under faults"), for
 * testing what a request, a worker or a retry does when AWS fails the way it does in production.
 * Off unless FAULT_RATE is set when a client is made: the client is then returned untouched.
 *
 * The service's code does not know of it: its clients pass through shared/client-hooks.ts when they
 * are made, and `installFaults()` (called by the local stack as it starts, in the process that runs
 * the handlers) registers `withFaults` there. Deployed, nothing registers it, and no bundle carries
 * this file (test/infra/runtime-boundary.test.ts).
 *
 * - FAULT_RATE: the probability that a request (each attempt the SDK makes) fails; read on every
 *   request, so a process may lower it to 0 while it runs (a test checking what faults left).
 * - FAULT_KINDS: which faults, comma-separated (default all): `dynamodb-throttle`
 *   (ProvisionedThroughputExceededException, ThrottlingException), `dynamodb-500`
 *   (InternalServerError), `dynamodb-timeout` (the SDK's TimeoutError after FAULT_TIMEOUT_MS,
 *   default 1000), `sqs` (RequestThrottled, a 500), `ses` (Throttling, a 503), `kms`
 *   (ThrottlingException, KMSInternalException).
 * - FAULT_AFTER_SEND: the share of the faults on writes (DynamoDB writes, SQS sends, SES mail)
 *   that strike after the request was carried out, its answer lost: the write happened, the caller
 *   sees a failure (default 0.25). A throttle never does: a throttled request did nothing.
 * - FAULT_STICKY: the share of faults that strike every attempt of their call, the SDK's retries
 *   included, so that the caller sees the failure, as in an outage or a throttling storm
 *   (default 0: each attempt is on its own, and the SDK's retries usually get through).
 * - FAULT_SEED: seeds the choices, so a run whose requests come in the same order fails the same
 *   way; a random seed, logged, when unset.
 *
 * A fault is made at the transport: the middleware sits between the SDK's deserializer and the
 * HTTP handler and answers, instead of AWS (or after it, for a lost answer), with the status and
 * error body AWS sends, or throws the TimeoutError the HTTP handler throws. So the exception the
 * caller gets is the one the SDK's own deserializer builds (its class, `$metadata`, `$fault`), and
 * the SDK's retries treat it as they treat the real one.
 */
import type { DeserializeHandlerOutput, DeserializeMiddleware, MiddlewareStack } from '@smithy/types';
import { onServiceClient, type ServiceName } from '#shared/client-hooks.ts';
import { logger } from '#shared/logger.ts';

export const FAULT_KINDS = ['dynamodb-throttle', 'dynamodb-500', 'dynamodb-timeout', 'sqs', 'ses', 'kms'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

const SERVICE_OF: Record<FaultKind, ServiceName> = {
  'dynamodb-throttle': 'dynamodb',
  'dynamodb-500': 'dynamodb',
  'dynamodb-timeout': 'dynamodb',
  sqs: 'sqs',
  ses: 'ses',
  kms: 'kms',
};

/**
 * The commands that change something (the document client's commands carry the names of the ones
 * they wrap): only their answers are ever lost after the request was carried out.
 */
const WRITES = /^(PutItem|UpdateItem|DeleteItem|TransactWriteItems|BatchWriteItem|SendMessage|SendMessageBatch|SendEmail)Command$/;

interface Settings {
  kinds: readonly FaultKind[];
  afterSend: number;
  sticky: number;
  timeoutMs: number;
  seed: number;
  random: () => number;
}

/** What fired, by kind and by when: before the request was sent, or after it was carried out. */
export type FaultCounts = Partial<Record<FaultKind, { before: number; after: number }>>;

let settings: Settings | undefined;
const fired: FaultCounts = {};

/** The faults fired in this process so far. */
export function faultsFired(): FaultCounts {
  return structuredClone(fired);
}

function record(kind: FaultKind, after: boolean): void {
  const counts = fired[kind] ?? { before: 0, after: 0 };
  if (after) counts.after += 1;
  else counts.before += 1;
  fired[kind] = counts;
}

const currentRate = (): number => {
  const rate = Number(process.env.FAULT_RATE);
  return Number.isFinite(rate) ? Math.min(Math.max(rate, 0), 1) : 0;
};

function fraction(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number of at least 0, not '${raw}'`);
  return value;
}

function kindsFromEnvironment(): FaultKind[] {
  const raw = process.env.FAULT_KINDS?.trim();
  if (!raw) return [...FAULT_KINDS];
  const kinds = raw.split(',').map((kind) => kind.trim());
  const unknown = kinds.filter((kind) => !(FAULT_KINDS as readonly string[]).includes(kind));
  if (unknown.length > 0) throw new Error(`FAULT_KINDS names unknown kinds: ${unknown.join(', ')} (known: ${FAULT_KINDS.join(', ')})`);
  return kinds as FaultKind[];
}

/** mulberry32: a small seeded generator, enough for choosing faults. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The settings of this process, read once, when the first client is made with faults on. */
function settingsFromEnvironment(): Settings {
  if (settings) return settings;
  const seed = process.env.FAULT_SEED?.trim() ? Number(process.env.FAULT_SEED) >>> 0 : Math.floor(Math.random() * 2 ** 32);
  const kinds = kindsFromEnvironment();
  const afterSend = Math.min(fraction('FAULT_AFTER_SEND', 0.25), 1);
  const sticky = Math.min(fraction('FAULT_STICKY', 0), 1);
  const timeoutMs = fraction('FAULT_TIMEOUT_MS', 1000);
  settings = { kinds, afterSend, sticky, timeoutMs, seed, random: seeded(seed) };
  logger.warn('AWS fault injection is on', { rate: currentRate(), kinds, afterSend, sticky, timeoutMs, seed });
  return settings;
}

/** An answer as the HTTP handler gives it to the deserializer. */
interface WireAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** What an error fault answers: the status and error body of the service's protocol. */
interface WireError {
  status: number;
  code: string;
  message: string;
}

const requestId = () => crypto.randomUUID();

/** AWS JSON 1.0 / 1.1 (DynamoDB, SQS, KMS): the error's type in the body and a header. */
function jsonError(service: ServiceName, { status, code, message }: WireError): WireAnswer {
  const namespace = { dynamodb: 'com.amazonaws.dynamodb.v20120810', sqs: 'com.amazonaws.sqs', kms: 'com.amazonaws.kms', ses: '' }[service];
  return {
    statusCode: status,
    headers: {
      'content-type': service === 'kms' ? 'application/x-amz-json-1.1' : 'application/x-amz-json-1.0',
      'x-amzn-requestid': requestId(),
      'x-amzn-errortype': code,
    },
    body: Buffer.from(JSON.stringify({ __type: `${namespace}#${code}`, message })),
  };
}

/** The AWS Query protocol (SES): an XML error response. */
function queryError({ status, code, message }: WireError): WireAnswer {
  const id = requestId();
  const type = status >= 500 ? 'Receiver' : 'Sender';
  const xml = `<ErrorResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><Error><Type>${type}</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>${id}</RequestId></ErrorResponse>`;
  return { statusCode: status, headers: { 'content-type': 'text/xml', 'x-amzn-requestid': id }, body: Buffer.from(xml) };
}

const wire = (service: ServiceName, error: WireError): WireAnswer => (service === 'ses' ? queryError(error) : jsonError(service, error));

/** A fault chosen for one request: an error answer, or a timeout; `throttle` never strikes after the request. */
type Fault = { answer: WireError; throttle: boolean } | { timeout: true };

function choose(kind: FaultKind, random: () => number): Fault {
  const either = <T>(a: T, b: T) => (random() < 0.5 ? a : b);
  switch (kind) {
    case 'dynamodb-throttle':
      return {
        throttle: true,
        answer: either(
          {
            status: 400,
            code: 'ProvisionedThroughputExceededException',
            message: 'The level of configured provisioned throughput for the table was exceeded.',
          },
          { status: 400, code: 'ThrottlingException', message: 'Throughput exceeds the current capacity of your table or index.' },
        ),
      };
    case 'dynamodb-500':
      return { throttle: false, answer: { status: 500, code: 'InternalServerError', message: 'Internal server error' } };
    case 'dynamodb-timeout':
      return { timeout: true };
    case 'sqs':
      return either<Fault>(
        { throttle: true, answer: { status: 400, code: 'RequestThrottled', message: 'Request is throttled.' } },
        { throttle: false, answer: { status: 500, code: 'InternalFailure', message: 'The request processing has failed.' } },
      );
    case 'ses':
      return either<Fault>(
        { throttle: true, answer: { status: 400, code: 'Throttling', message: 'Maximum sending rate exceeded.' } },
        { throttle: false, answer: { status: 503, code: 'ServiceUnavailable', message: 'Service is unavailable.' } },
      );
    case 'kms':
      return either<Fault>(
        { throttle: true, answer: { status: 400, code: 'ThrottlingException', message: 'Rate exceeded' } },
        { throttle: false, answer: { status: 500, code: 'KMSInternalException', message: 'An internal error occurred.' } },
      );
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the SDK's HTTP handler throws when no answer comes in time. */
const timeoutError = (ms: number) =>
  Object.assign(new Error(`The request timed out after ${ms} ms (injected fault)`), { name: 'TimeoutError', $metadata: {} });

/** Lets a real answer that is being thrown away release its connection. */
function discard(response: unknown): void {
  const body = (response as { body?: { resume?: () => void } } | undefined)?.body;
  body?.resume?.();
}

/** A fault as chosen for a call: its kind, what it answers, and whether it strikes after the request was carried out. */
interface Chosen {
  kind: FaultKind;
  fault: Fault;
  after: boolean;
}

/** Sticky faults by the SDK's invocation id (the same on every attempt of one call); the oldest are let go past this many. */
const STICKY_KEPT = 1000;

function faultMiddleware<Input extends object, Output extends object>(
  service: ServiceName,
  options: Settings,
): DeserializeMiddleware<Input, Output> {
  const kinds = options.kinds.filter((kind) => SERVICE_OF[kind] === service);
  const sticky = new Map<string, Chosen>();
  const choice = (commandName: string | undefined): Chosen | undefined => {
    const kind = kinds[Math.floor(options.random() * kinds.length)];
    if (!kind) return undefined;
    const fault = choose(kind, options.random);
    const throttle = 'throttle' in fault && fault.throttle;
    return { kind, fault, after: !throttle && WRITES.test(commandName ?? '') && options.random() < options.afterSend };
  };
  return (next, context) => async (args) => {
    const rate = currentRate();
    const headers = (args.request as { headers?: Record<string, string> }).headers ?? {};
    const invocation = headers['amz-sdk-invocation-id'];
    const held = invocation === undefined ? undefined : sticky.get(invocation);
    const chosen = rate === 0 ? undefined : (held ?? (options.random() < rate ? choice(context.commandName) : undefined));
    if (!chosen) return next(args);
    if (!held && invocation !== undefined && options.random() < options.sticky) {
      sticky.set(invocation, chosen);
      for (const oldest of sticky.keys()) {
        if (sticky.size <= STICKY_KEPT) break;
        sticky.delete(oldest);
      }
    }
    record(chosen.kind, chosen.after);
    if (chosen.after) discard((await next(args)).response);
    if ('timeout' in chosen.fault) {
      await sleep(options.timeoutMs);
      throw timeoutError(options.timeoutMs);
    }
    // The deserializer reads it as AWS's answer and throws the exception the SDK makes of it.
    return { response: wire(service, chosen.fault.answer) } as DeserializeHandlerOutput<Output>;
  };
}

/** A client of the service's, with faults injected into its requests when FAULT_RATE is set; else the client itself. */
export function withFaults<Input extends object, Output extends object, Client extends { middlewareStack: MiddlewareStack<Input, Output> }>(
  client: Client & { middlewareStack: MiddlewareStack<Input, Output> },
  service: ServiceName,
): Client {
  if (process.env.FAULT_RATE === undefined || process.env.FAULT_RATE.trim() === '') return client;
  const options = settingsFromEnvironment();
  if (!options.kinds.some((kind) => SERVICE_OF[kind] === service)) return client;
  // Inside the deserializer: what it is given stands for the HTTP handler's answer.
  client.middlewareStack.add(faultMiddleware<Input, Output>(service, options), {
    step: 'deserialize',
    priority: 'low',
    name: 'faultInjection',
  });
  return client;
}

let installed = false;

/**
 * Fault injection on every client of the service's in this process (shared/client-hooks.ts): each
 * is given to `withFaults`, those made from now on when they are made (FAULT_RATE is read then, as
 * for any client), those made before at once. Once per process: a second call does nothing.
 */
export function installFaults(): void {
  if (installed) return;
  installed = true;
  onServiceClient((client, service) => {
    withFaults(client, service);
  });
}
