/**
 * The functions the stack runs: the route table, which is every operation the resources of the
 * manifest declare (shared/resources/manifest.ts, each resource's operations.ts), and the workers
 * fed by queues, the stream and timers.
 *
 * The CDK stack builds one Lambda function per route (and per worker), granted only the access
 * the entry declares; the local server dispatches from the same table. Adding an operation means
 * declaring it in its resource's operations.ts and writing its handler, under the same key, in the
 * resource's handlers.ts. Nothing running in a Lambda reads this module: it loads every
 * resource's declarations.
 */
import { type Access, READ, TABLE_WRITE } from './access.ts';
import type { Declaration } from './http/declaration.ts';
import { outboxAccess, outboxFilters } from './outbox/entries.ts';
import { manifest } from './resources/manifest.ts';

/**
 * Where a function's handler comes from, relative to the repository root. A worker's module
 * exports `handler`. An operation's handler is built by the factory its resource's handlers.ts
 * exports under the declaration's key: the function's entry imports that factory alone and calls
 * it once (lib/handler-entry.ts), so a bundle carries its own operation and not its neighbours'.
 */
export interface HandlerSource {
  module: string;
  /** The export that builds the handler; absent, the module exports the handler itself as `handler`. */
  factory?: string;
}

/** A route-table entry: what the stacks need of an operation's declaration. */
export type Route = Pick<Declaration, 'operation' | 'method' | 'path' | 'access' | 'throttle'> & { handler: HandlerSource };

/** An operation's declaration, with where its handler comes from. */
export type DeclaredRoute = Declaration & { handler: HandlerSource };

/** Whether an export of an operations module is an operation's declaration. */
const isDeclaration = (value: unknown): value is Declaration =>
  value !== null &&
  typeof value === 'object' &&
  typeof (value as Declaration).operation === 'string' &&
  typeof (value as Declaration).method === 'string';

/**
 * The declarations of every resource the manifest lists, resource by resource in its order: the
 * values of the objects its operations.ts exports (a resource may have none: its records are
 * served by another's operations), each with its handler: the factory of the resource's
 * handlers.ts (pages.ts for a plain page) named as the declaration's key.
 */
async function declaredOperations(): Promise<DeclaredRoute[]> {
  const found = new Map<Declaration, DeclaredRoute>();
  for (const name of Object.keys(manifest)) {
    const module: Record<string, unknown> = await import(`./resources/${name}/operations.ts`);
    // By export name, as a module namespace lists them (a test runner's module objects may not).
    for (const exportName of Object.keys(module).sort()) {
      const exported = module[exportName];
      if (exported === null || typeof exported !== 'object') continue;
      for (const [key, value] of Object.entries(exported)) {
        if (!isDeclaration(value) || found.has(value)) continue;
        // A plain page (outside the pipeline) is built in pages.ts, apart from the pipeline's handlers.
        const handlerModule = `shared/resources/${name}/${value.plain ? 'pages' : 'handlers'}.ts`;
        found.set(value, { ...value, handler: { module: handlerModule, factory: key } });
      }
    }
  }
  return [...found.values()];
}

export const routes: readonly DeclaredRoute[] = await declaredOperations();

/** The queues the service uses; each has a dead-letter queue. */
export type QueueName = 'webhooks' | 'purge' | 'mail' | 'cascades';

export interface Worker {
  operation: string;
  queue: QueueName;
  handler: HandlerSource;
  access: readonly Access[];
  /** Messages per invocation, as the event source mapping delivers them. */
  batchSize: number;
  /**
   * Invocations the event source runs at once at most (its maximum concurrency, 2 to 1000);
   * the local poller keeps as many batches in flight.
   */
  maxConcurrency: number;
}

/**
 * A function fed by the table's stream, as a worker is by its queue: Lambda's DynamoDB event source
 * on AWS (lib/stream-workers.ts), the stream poller in the local stack (dev/local/streams.ts), both from
 * this entry. Only the records a filter lets through reach it, oldest first (TRIM_HORIZON, so a
 * new source starts with what the stream still holds). It answers the records it failed
 * (ReportBatchItemFailures): the batch is retried from the first of them. A batch that throws is
 * split in two, each half retried on its own (BisectBatchOnFunctionError). A batch that still
 * fails after `retryAttempts` retries, or whose records grew older than `maxRecordAgeSeconds`, is
 * described in the function's on-failure queue and its shard goes on.
 */
export interface StreamWorker {
  operation: string;
  handler: HandlerSource;
  access: readonly Access[];
  /** Records per invocation at most. */
  batchSize: number;
  /** Seconds the event source may wait to fill a batch; 0: a batch goes as soon as a record is there. */
  maxBatchingWindowSeconds: number;
  retryAttempts: number;
  maxRecordAgeSeconds: number;
  timeoutSeconds: number;
  /** Lambda event filter patterns: a record any of them matches is handed to the function. */
  filters: readonly Record<string, unknown>[];
  /** How long the on-failure queue keeps a failed batch's description (seconds). */
  failureRetentionSeconds: number;
}

/**
 * A function the stack runs on a timer rather than for a request or a message: an EventBridge
 * rule on AWS (lib/schedules.ts), a timer in the local stack (dev/local/scheduler.ts).
 */
export interface Schedule {
  operation: string;
  handler: HandlerSource;
  access: readonly Access[];
  /** Minutes between runs on AWS (the rule's rate); the local stack's interval is its own setting. */
  everyMinutes: number;
  /** Seconds one run may take. */
  timeoutSeconds: number;
}

/**
 * Answers every request no route matches: 404 in the API's error format, signed when the path
 * names an existing account (it reads that account and signs with its key).
 */
export const fallback = {
  operation: 'notFound',
  handler: { module: 'functions/not-found.ts' } as HandlerSource,
  access: READ as readonly Access[],
} as const;

export const workers: readonly Worker[] = [
  {
    operation: 'workers.purgeEnvironment',
    queue: 'purge',
    handler: { module: 'functions/workers/purge-environment.ts' },
    access: [...TABLE_WRITE, 'queue:purge'],
    batchSize: 1,
    // Each step is a burst of deletes: a few purges at once leave the table to the API.
    maxConcurrency: 2,
  },
  {
    operation: 'workers.cascade',
    queue: 'cascades',
    handler: { module: 'functions/workers/cascade.ts' },
    // Removes what hangs on a record removed at once, or clears a deleted user's owner links; the
    // removals announce themselves (events the outbox relay delivers) and continue in the next step's message.
    access: [...TABLE_WRITE, 'queue:cascades'],
    batchSize: 1,
    // Each step is a run of transactions: a few cascades at once leave the table to the API.
    maxConcurrency: 2,
  },
  {
    operation: 'workers.passwordReset',
    queue: 'mail',
    handler: { module: 'functions/workers/password-reset.ts' },
    // Hands the reset token over by mail, or in a user.password-reset event (which keeps it sealed).
    access: [...TABLE_WRITE, 'mail:send', 'key:seal'],
    batchSize: 10,
    // Well within SES's sending rate.
    maxConcurrency: 2,
  },
  {
    operation: 'workers.deliverWebhook',
    queue: 'webhooks',
    handler: { module: 'functions/workers/deliver-webhook.ts' },
    // Writes the event's outcome, disables an endpoint that answers 410 (an event of its own),
    // and queues the next attempt; unseals the secrets an event delivers.
    access: [...TABLE_WRITE, 'queue:webhooks', 'key:unseal'],
    batchSize: 10,
    // Enough to keep up with a burst of changes (docs/benchmarks.md, "Webhook delivery": 10 and
    // then 20 did not, locally: deliveries fell behind the API's events and waited 2.5 s), each
    // invocation a batch of up to 10 POSTs in parallel; bounded, so a backlog opens at most 400
    // connections to receivers at once.
    maxConcurrency: 40,
  },
];

export const schedules: readonly Schedule[] = [
  {
    operation: 'workers.sweepHeartbeats',
    handler: { module: 'functions/workers/sweep-heartbeats.ts' },
    // Reads the due index and the records it names; writes machines (their heartbeat judged, or
    // their removal with their components and seat), and the events of both (the outbox relay sends their deliveries).
    access: TABLE_WRITE,
    // A machine is judged within two minutes of its deadline (docs/rules.md §22.5).
    everyMinutes: 1,
    // Ample for a minute's due records; a sweep that overruns the next one is harmless (sweep.ts).
    timeoutSeconds: 120,
  },
];

export const streamWorkers: readonly StreamWorker[] = [
  {
    operation: 'workers.relayOutbox',
    handler: { module: 'functions/workers/relay-outbox.ts' },
    // Sends to the queues of the outbox entries, and nothing else: the records carry what it sends.
    access: outboxAccess(),
    // A hundred records make ten SendMessageBatch requests at most per queue, sent side by side:
    // well within the timeout, and few invocations under a burst.
    batchSize: 100,
    // No wait: what the relay adds to every delivery, purge and mail is a poll of the stream
    // (four a second per shard) and one invocation. A burst fills batches by itself.
    maxBatchingWindowSeconds: 0,
    // A failing send is retried (with the event source's backoff) for minutes, then the batch goes
    // to the on-failure queue and its shard goes on: a record that cannot be relayed holds back
    // the records behind it only that long.
    retryAttempts: 10,
    // Shorter than the stream's 24 hours, so a record the relay could not hand on for hours (it
    // is throttled, or disabled) is described in the on-failure queue while the stream still holds
    // it, with 12 hours left to replay it (docs/operations.md, "The outbox relay").
    maxRecordAgeSeconds: 12 * 3600,
    timeoutSeconds: 30,
    filters: outboxFilters(),
    failureRetentionSeconds: 14 * 86400,
  },
];
