/**
 * Requests under faults: a local stack of this test process's own, whose AWS clients fail as
 * FAULT_RATE says (dev/faults.ts), the requests sent to it, and then, faults off and the stack
 * idle, what the faults left: answers that break the API's promise, a table that is not
 * consistent, webhook events never delivered, reset mails lost.
 *
 *   const stack = await startFaultStack({ seed: 18 });
 *   const account = await stack.newAccount();
 *   const run = await runUnderFaults(stack, requests, { rate: 0.08 });
 *   expect(run.badAnswers).toEqual([]);
 *
 * The stack runs its handlers and workers in this process, so the variables are set here before
 * any of the service's AWS clients is made: call startFaultStack before anything in the process
 * touches the table. The suite's shared stack, which other files use meanwhile, never sees a fault.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { vi } from 'vitest';
import { type FaultCounts, type FaultKind, faultsFired } from '#dev/faults.ts';
import { deadLetterQueueName } from '#dev/local/sqs.ts';
import { type LocalStack, startLocalStack } from '#dev/local/stack.ts';
import { MEDIA_TYPE } from '#shared/http/errors.ts';
import { logger } from '#shared/logger.ts';
import { createAccount } from '#shared/resources/accounts/service.ts';
import type { QueueName } from '#shared/routes.ts';
import { checkConsistency, type Item, scanItems, type Violation } from './consistency.ts';
import { type Delivery, type Receiver, startReceiver } from './receiver.ts';
import { verifyAnswer } from './signed.ts';

/** No answer within this long is a hang. */
const ANSWER_TIMEOUT_MS = 10_000;
const IDLE_TIMEOUT_MS = 60_000;

export interface FaultStackOptions {
  /** FAULT_SEED; the environment's FAULT_SEED wins, so a failing run can be replayed. */
  seed?: number;
  kinds?: readonly FaultKind[];
  /** FAULT_AFTER_SEND: the share of faults on writes that strike after the write was made. */
  afterSend?: number;
  /** FAULT_TIMEOUT_MS: how long an injected timeout waits. */
  timeoutMs?: number;
  /** FAULT_STICKY: the share of faults that strike every attempt of their call, so the caller sees them. */
  sticky?: number;
}

export interface FaultAccount {
  id: string;
  /** `/v1/accounts/<id>` */
  path: string;
  adminToken: string;
  publicKey: string;
}

export interface FaultStack {
  local: LocalStack;
  /**
   * Receives every webhook event of the accounts made here (an endpoint subscribed to all, and any
   * other endpoint at its URL). It refuses the first POST of one event in five (503), so that
   * retries run under faults too, and takes the rest (204).
   */
  receiver: Receiver;
  /** What the receiver answered each delivery. */
  answered: WeakMap<Delivery, number>;
  /** An account with its admin, and an endpoint at the receiver; made with faults off. */
  newAccount(): Promise<FaultAccount>;
  stop(): Promise<void>;
}

export interface ApiRequest {
  method: string;
  /** From `/v1`, or relative to an account when `account` is given. */
  path: string;
  account?: FaultAccount;
  /** Bearer token; the account's admin token when `account` is given and none of this, `authorization` or `anonymous` is. */
  token?: string;
  /** Sent without credentials (an unauthenticated route). */
  anonymous?: boolean;
  /** A raw Authorization header (Basic, License). */
  authorization?: string;
  environment?: string;
  body?: unknown;
}

export interface Answered {
  request: ApiRequest;
  status: number;
  contentType: string | null;
  /** The parsed JSON body, else the text. */
  body: any;
  /** Why no answer came (a hang, a dropped connection); status 0. */
  failure?: string;
  /** Whether the answer carried a signature that verifies (undefined: unsigned). */
  signed?: boolean;
}

export type Send = (request: ApiRequest) => Promise<Answered>;

/** One request, or a client's session of requests that depend on each other's answers. */
export type Step = ApiRequest | ((send: Send) => Promise<void>);

export interface FaultRunOptions {
  /** FAULT_RATE while the steps run. */
  rate: number;
  /** Steps running at once. */
  concurrency?: number;
  /**
   * Whether each request was meant to succeed (a realistic session): any answer but a 2xx, or a
   * 5xx, 429 or 409 error document, is then bad. False (a fuzz run): 4xx error documents are fine too.
   */
  expectSuccess?: boolean;
}

export interface BadAnswer {
  request: string;
  status: number;
  problem: string;
}

export interface Undelivered {
  id: string;
  event: string;
  status: string;
  deliveryAttempt?: number;
  deliveryLease?: number;
  lastResponseBody?: string;
  /** POSTs the receiver saw of it. */
  received: number;
}

export interface LostMail {
  email: string;
  accepted: number;
  mailed: number;
  deadLettered: number;
}

export interface FaultRun {
  answers: Answered[];
  /** Faults fired while the steps ran, and until the stack was idle with faults off. */
  fired: FaultCounts;
  statuses: Record<number, number>;
  badAnswers: BadAnswer[];
  violations: Violation[];
  /**
   * Events committed whose first delivery message never reached the queue once the stack was
   * idle: the outbox relay sends it from the table's stream whatever the request saw (a queue that
   * refused, a commit whose answer was lost), so there should be none.
   */
  stranded: string[];
  /** Webhook events (in the table) not delivered to an endpoint that still takes them, nor dead-lettered. */
  undelivered: Undelivered[];
  /**
   * Events whose delivery message is in the webhooks dead-letter queue after its retries (an
   * operator redrives them) because a failed run could not give its claim back: the message came
   * back while the claim's lease held it, as often as the queue allows when it comes back sooner than
   * the lease ends (the test stack's one-second visibility; on AWS, 120 s outlast the 20 s lease).
   */
  deadLettered: Undelivered[];
  /** Events dead-lettered for any other reason: a delivery that failed again and again. */
  deadLetteredUnexplained: Undelivered[];
  /**
   * Events POSTed again after their endpoint had answered 2xx: at-least-once delivery's duplicates,
   * when a run could not write the outcome of its POST and gave its claim back.
   */
  redelivered: string[];
  /** Delivery attempts whose outcome was recorded more than once: each attempt is claimed, and recorded, once. */
  recordedTwice: string[];
  /** Delivery attempts whose outcome was recorded. */
  recordedAttempts: number;
  lostMails: LostMail[];
}

const describeRequest = (request: ApiRequest) => `${request.method} ${request.account ? request.account.path : ''}${request.path}`;

export async function startFaultStack(options: FaultStackOptions = {}): Promise<FaultStack> {
  Object.assign(process.env, {
    // Installed now, off until a run sets its rate: the clients are made once, with it.
    FAULT_RATE: '0',
    FAULT_SEED: process.env.FAULT_SEED || String(options.seed ?? 1),
    ...(options.kinds ? { FAULT_KINDS: options.kinds.join(',') } : {}),
    ...(options.afterSend === undefined ? {} : { FAULT_AFTER_SEND: String(options.afterSend) }),
    ...(options.sticky === undefined ? {} : { FAULT_STICKY: String(options.sticky) }),
    FAULT_TIMEOUT_MS: String(options.timeoutMs ?? 300),
    // The suite's timings (test/support/local-stack-setup.ts): retries within a test's patience, limits out of reach.
    WEBHOOK_RETRY_DELAYS: '1,1,1',
    LOCAL_RETRY_VISIBILITY_SECONDS: '1',
    RATE_LIMIT_PER_ADDRESS: '1000000',
  });
  // The handlers log every fault they meet; POWERTOOLS_LOG_LEVEL shows them.
  if (!process.env.POWERTOOLS_LOG_LEVEL) logger.setLogLevel('SILENT');
  const local = await startLocalStack({ apiPort: 0, dynamodbPort: 0, sqsPort: 0, sesPort: 0, log: () => undefined });
  const receiver = await startReceiver();
  const answered = new WeakMap<Delivery, number>();
  const seen = new Set<string>();
  receiver.answer = (delivery) => {
    const id = String(delivery.json?.data?.id);
    const first = !seen.has(id);
    seen.add(id);
    const status = first && Number.parseInt(id.slice(0, 8), 16) % 5 === 0 ? 503 : 204;
    answered.set(delivery, status);
    return { status };
  };
  return {
    local,
    receiver,
    answered,
    async newAccount() {
      const slug = `f-${randomUUID().slice(0, 12)}`;
      const { account, token } = await createAccount({
        slug,
        name: `Faults ${slug}`,
        email: `admin@${slug}.example`,
        password: 'correct horse battery',
      });
      if (!account.signingKey) throw new Error('the account has no signing key');
      const made = { id: account.id, path: `/v1/accounts/${account.id}`, adminToken: token, publicKey: account.signingKey.publicKey };
      const endpoint = await send(local.api, {
        method: 'POST',
        path: '/webhook-endpoints',
        account: made,
        body: { data: { type: 'webhook-endpoints', attributes: { url: receiver.url } } },
      });
      if (endpoint.status !== 201)
        throw new Error(`the webhook endpoint was not made: ${endpoint.status} ${JSON.stringify(endpoint.body)}`);
      return made;
    },
    async stop() {
      await receiver.close();
      await local.stop();
    },
  };
}

/** Sends one request to the stack; never throws: a request that gets no answer says why. */
async function send(api: string, request: ApiRequest): Promise<Answered> {
  const headers: Record<string, string> = { accept: MEDIA_TYPE };
  const token = request.token ?? (request.authorization || request.anonymous ? undefined : request.account?.adminToken);
  if (token) headers.authorization = `Bearer ${token}`;
  if (request.authorization) headers.authorization = request.authorization;
  if (request.environment !== undefined) headers['service-environment'] = request.environment;
  if (request.body !== undefined) headers['content-type'] = MEDIA_TYPE;
  const url = new URL(`${api}${request.account?.path ?? ''}${request.path}`);
  try {
    const response = await fetch(url, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    const text = bytes.toString('utf8');
    const contentType = response.headers.get('content-type');
    let body: unknown = text;
    if (/json/i.test(contentType ?? '') && text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const signed =
      response.headers.get('keygen-signature') === null || !request.account
        ? undefined
        : verifyAnswer(
            { method: request.method, url, status: response.status, headers: response.headers, body: bytes },
            request.account.publicKey,
          ) === undefined;
    return { request, status: response.status, contentType, body, signed };
  } catch (error) {
    return { request, status: 0, contentType: null, body: undefined, failure: (error as Error).message };
  }
}

/** What is wrong with an answer, if anything. */
function problemOf(answer: Answered, expectSuccess: boolean): string | undefined {
  if (answer.failure) return `no answer: ${answer.failure}`;
  const { status } = answer;
  if (answer.signed === false) return 'its signature does not verify';
  if (status >= 200 && status < 300) {
    if (answer.request.account && answer.signed === undefined) return 'a success without a signature';
    return answer.body === '' || typeof answer.body === 'object'
      ? undefined
      : `a success that is not JSON: ${String(answer.body).slice(0, 200)}`;
  }
  const allowed = status >= 500 || status === 429 || status === 409 || (!expectSuccess && status >= 400 && status < 500);
  if (!allowed) return `a request meant to succeed answered ${status}: ${JSON.stringify(answer.body).slice(0, 300)}`;
  if (answer.contentType !== MEDIA_TYPE) return `an error answered as ${answer.contentType}`;
  const body = answer.body;
  const wellFormed =
    typeof body === 'object' &&
    body !== null &&
    Object.keys(body).sort().join() === 'errors,meta' &&
    typeof body.meta?.id === 'string' &&
    Array.isArray(body.errors) &&
    body.errors.length > 0 &&
    body.errors.every((error: any) => typeof error.title === 'string' && typeof error.detail === 'string');
  return wellFormed ? undefined : `not a JSON:API error document: ${JSON.stringify(body).slice(0, 300)}`;
}

/** Runs `steps` with faults at `rate`, then, faults off and the stack idle, checks what they left. */
export async function runUnderFaults(stack: FaultStack, steps: readonly Step[], options: FaultRunOptions): Promise<FaultRun> {
  const answers: Answered[] = [];
  const sender: Send = async (request) => {
    const answer = await send(stack.local.api, request);
    answers.push(answer);
    return answer;
  };
  const before = faultsFired();
  const logs = watchLogs();
  process.env.FAULT_RATE = String(options.rate);
  try {
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < steps.length; i = next++) {
        const step = steps[i];
        if (step === undefined) continue;
        if (typeof step === 'function') await step(sender);
        else await sender(step);
      }
    };
    await Promise.all(Array.from({ length: options.concurrency ?? 6 }, worker));
  } finally {
    process.env.FAULT_RATE = '0';
  }
  // What was set off goes on without faults: retries, deliveries, mails, until nothing is left to do.
  await idle(stack);

  const expectSuccess = options.expectSuccess ?? true;
  const badAnswers = answers.flatMap((answer) => {
    const problem = problemOf(answer, expectSuccess);
    return problem ? [{ request: describeRequest(answer.request), status: answer.status, problem }] : [];
  });
  const statuses: Record<number, number> = {};
  for (const { status } of answers) statuses[status] = (statuses[status] ?? 0) + 1;

  const client = new DynamoDBClient({ endpoint: stack.local.dynamodb, region: stack.local.region });
  try {
    const scan = { tableName: stack.local.tableName, client };
    const deadWebhooks = await deadLetters(stack, 'webhooks');
    const stranded = strandedEvents(await scanItems(scan), deadWebhooks);
    const items = await scanItems(scan);
    const { undelivered, deadLettered, redelivered } = deliveries(items, stack, deadWebhooks);
    const held = (event: Undelivered) => logs.heldClaims.has(event.id);
    return {
      answers,
      fired: difference(faultsFired(), before),
      statuses,
      badAnswers,
      violations: await checkConsistency(scan),
      stranded: stranded.map((event) => String(event.id)),
      undelivered,
      deadLettered: deadLettered.filter(held),
      deadLetteredUnexplained: deadLettered.filter((event) => !held(event)),
      redelivered,
      recordedTwice: logs.recordedTwice(),
      recordedAttempts: logs.recordedAttempts(),
      lostMails: await lostMails(stack, answers, items),
    };
  } finally {
    client.destroy();
    logs.stop();
  }
}

/**
 * What the service logs while watched: the webhook events whose failed run could not give
 * its claim back (held until its lease ends), and each delivery attempt whose outcome it recorded
 * (`webhook attempt`, shared/events/deliver.ts).
 */
function watchLogs() {
  const heldClaims = new Set<string>();
  const recorded = new Map<string, number>();
  const watch = (level: 'error' | 'info', seen: (message: unknown, extra: Record<string, unknown>) => void) => {
    const log = logger[level].bind(logger) as (...args: unknown[]) => void;
    return vi.spyOn(logger, level).mockImplementation((...args: unknown[]) => {
      seen(args[0], (args[1] ?? {}) as Record<string, unknown>);
      log(...args);
    });
  };
  const spies = [
    watch('error', (message, extra) => {
      if (message === 'webhook attempt claim not given back; it frees itself when its lease ends')
        heldClaims.add(String(extra.webhookEventId));
    }),
    watch('info', (message, extra) => {
      if (message !== 'webhook attempt') return;
      const attempt = `${String(extra.webhookEventId)} attempt ${String(extra.attempt)}`;
      recorded.set(attempt, (recorded.get(attempt) ?? 0) + 1);
    }),
  ];
  return {
    heldClaims,
    recordedTwice: () => [...recorded].filter(([, times]) => times > 1).map(([attempt]) => attempt),
    recordedAttempts: () => recorded.size,
    stop: () => {
      for (const spy of spies) spy.mockRestore();
    },
  };
}

async function idle(stack: FaultStack): Promise<void> {
  const report = await stack.local.waitUntilIdle(IDLE_TIMEOUT_MS);
  if (!report.idle) throw new Error(`the stack was still busy ${IDLE_TIMEOUT_MS / 1000} s on: ${JSON.stringify(report)}`);
}

function difference(after: FaultCounts, before: FaultCounts): FaultCounts {
  const fired: FaultCounts = {};
  for (const [kind, counts] of Object.entries(after) as [FaultKind, { before: number; after: number }][]) {
    const earlier = before[kind] ?? { before: 0, after: 0 };
    fired[kind] = { before: counts.before - earlier.before, after: counts.after - earlier.after };
  }
  return fired;
}

/**
 * Events committed whose first delivery message never reached the queue, once the stack is idle:
 * still DELIVERING, never claimed, not dead-lettered (docs/operations.md, "Stuck events").
 */
const strandedEvents = (items: readonly Item[], dead: readonly Record<string, unknown>[]) =>
  items.filter(
    (item) =>
      item.type === 'webhook-events' &&
      item.status === 'DELIVERING' &&
      item.deliveryAttempt === undefined &&
      !dead.some((message) => message.webhookEventId === item.id),
  );

/** What docs/operations.md tells an operator to do for a stuck event: send its first attempt to the webhooks queue. */
const GONE = new Set(['The webhook endpoint no longer exists', 'The webhook endpoint is disabled']);

/**
 * Every webhook event in the table is delivered: DELIVERED and received, or FAILED because its
 * endpoint went (deleted or disabled before the attempt). One whose delivery message is in the
 * dead-letter queue (after its retries, for an operator to redrive) is listed apart, as is an event
 * POSTed again once its endpoint had answered 2xx: a duplicate (at least once).
 */
function deliveries(
  items: readonly Item[],
  stack: FaultStack,
  dead: readonly Record<string, unknown>[],
): { undelivered: Undelivered[]; deadLettered: Undelivered[]; redelivered: string[] } {
  const posts = new Map<string, number>();
  const redelivered = new Set<string>();
  const answeredOk = new Set<string>();
  for (const delivery of stack.receiver.deliveries) {
    const id = String(delivery.json?.data?.id);
    posts.set(id, (posts.get(id) ?? 0) + 1);
    if (answeredOk.has(id)) redelivered.add(id);
    if ((stack.answered.get(delivery) ?? 500) < 300) answeredOk.add(id);
  }
  const endpoints = new Map(items.filter((item) => item.type === 'webhook-endpoints').map((item) => [item.id, item]));
  const notDelivered = items
    .filter((item) => item.type === 'webhook-events')
    .filter((event) => {
      if (event.status === 'DELIVERED') return !posts.has(String(event.id));
      const endpoint = endpoints.get(event.endpointId);
      const gone = !endpoint || endpoint.enabled === false;
      return !(event.status === 'FAILED' && gone && GONE.has(String(event.lastResponseBody)));
    });
  const inDeadLetters = (event: Item) => dead.some((message) => message.webhookEventId === event.id);
  const described = (event: Item): Undelivered => ({
    id: String(event.id),
    event: String(event.event),
    status: String(event.status),
    ...(event.deliveryAttempt === undefined ? {} : { deliveryAttempt: Number(event.deliveryAttempt) }),
    ...(event.deliveryLease === undefined ? {} : { deliveryLease: Number(event.deliveryLease) }),
    ...(typeof event.lastResponseBody === 'string' ? { lastResponseBody: event.lastResponseBody } : {}),
    received: posts.get(String(event.id)) ?? 0,
  });
  return {
    undelivered: notDelivered.filter((event) => !inDeadLetters(event)).map(described),
    deadLettered: notDelivered.filter(inDeadLetters).map(described),
    redelivered: [...redelivered],
  };
}

/**
 * Every reset request the API accepted for an address an active user still holds ended in a mail
 * to it, or in the mail queue's dead-letter queue after its retries: never nowhere.
 */
async function lostMails(stack: FaultStack, answers: readonly Answered[], items: readonly Item[]): Promise<LostMail[]> {
  const accepted = new Map<string, number>();
  for (const answer of answers) {
    if (answer.request.method !== 'POST' || !answer.request.path.endsWith('/passwords') || answer.status >= 300) continue;
    const meta = (answer.request.body as { meta?: { email?: string; deliver?: boolean } } | undefined)?.meta;
    // A reset handed to webhooks (deliver: false) sends no mail: its event is checked with the deliveries.
    if (meta?.deliver === false) continue;
    const email = String(meta?.email ?? '').toLowerCase();
    accepted.set(email, (accepted.get(email) ?? 0) + 1);
  }
  if (accepted.size === 0) return [];
  const users = new Set(
    items.filter((item) => item.type === 'users' && item.status === 'ACTIVE').map((item) => String(item.email).toLowerCase()),
  );
  const store = (await (await fetch(`${stack.local.ses}/store`)).json()) as { emails: { destination: { to: string[] } }[] };
  const mailed = (email: string) => store.emails.filter((mail) => mail.destination.to.some((to) => to.toLowerCase() === email)).length;
  const dead = await deadLetters(stack, 'mail');
  return [...accepted]
    .filter(([email]) => users.has(email))
    .map(([email, count]) => ({
      email,
      accepted: count,
      mailed: mailed(email),
      deadLettered: dead.filter((message) => String(message.email).toLowerCase() === email).length,
    }))
    .filter((mail) => mail.mailed + mail.deadLettered < mail.accepted);
}

/** A queue's dead-letter queue, read to the end (its messages' bodies). */
async function deadLetters(stack: FaultStack, queue: QueueName): Promise<Record<string, unknown>[]> {
  const sqs = new SQSClient({ endpoint: stack.local.sqs, region: stack.local.region });
  const url = stack.local.sqsServer.queueUrl(deadLetterQueueName(queue));
  const bodies: Record<string, unknown>[] = [];
  try {
    for (;;) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 60 }),
      );
      if (Messages.length === 0) return bodies;
      bodies.push(...Messages.map((message) => JSON.parse(message.Body ?? '{}') as Record<string, unknown>));
    }
  } finally {
    sqs.destroy();
  }
}
