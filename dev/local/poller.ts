/**
 * Calls the worker handlers with SQS batch events, the way Lambda's event source mapping does:
 * up to `batchSize` messages per invocation, several invocations at once (up to the worker's
 * `maxConcurrency`, the figure the stack gives the event source; DEFAULT_CONCURRENCY when it
 * declares none, as many batches as an event source starts with); messages the handler lists
 * in `batchItemFailures` (or the whole batch, if it throws) stay on the queue and come back
 * after their visibility timeout; the rest are deleted. After `maxReceiveCount` receives the
 * queue's redrive policy moves a failing message to the dead-letter queue.
 *
 * Locally the visibility timeout of a receive is short (`retryVisibilitySeconds`, 10 s unless
 * LOCAL_RETRY_VISIBILITY_SECONDS says otherwise), so a failed message returns within seconds
 * instead of minutes. On AWS a message is never seen again while its batch runs (the visibility
 * timeout outlasts the function's); to keep that true here, where a batch could outlive the
 * short timeout, a receive is only made when it is sure to end before any batch in flight could
 * become visible again: a batch that runs longer than about the visibility timeout holds the
 * worker's receives back until it ends. Visibility is never extended: local-aws-sqs would count
 * each ChangeMessageVisibility as one more receive.
 */

import { setMaxListeners } from 'node:events';
import { DeleteMessageBatchCommand, type Message, type MessageAttributeValue, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import type { HandlerSource } from '#shared/routes.ts';
import { localAwsConfig } from './aws-clients.ts';
import { createHandlerLoader } from './handler-modules.ts';
import { lambdaContext } from './lambda-context.ts';

export interface PolledWorker {
  operation: string;
  queue: string;
  handler: HandlerSource;
  batchSize: number;
  /** Batches in flight at once; DEFAULT_CONCURRENCY when not given. */
  maxConcurrency?: number;
}

/** What an SQS event source starts with: five batches in flight per queue. */
export const DEFAULT_CONCURRENCY = 5;
/**
 * How long after its wait a receive may still hide messages: local-aws-sqs answers a receive
 * that found nothing 40 ms after its wait, plus room for a busy event loop.
 */
const RECEIVE_SLACK_MS = 500;

export interface PollerOptions {
  workers: readonly PolledWorker[];
  /** Queue URL per queue name a worker consumes. */
  queueUrls: Readonly<Record<string, string>>;
  /** Seconds a worker function may run, per queue; sets getRemainingTimeInMillis. */
  timeoutSeconds?: Readonly<Record<string, number>>;
  root: string;
  sqsEndpoint: string;
  region: string;
  retryVisibilitySeconds?: number;
  /** Long-poll wait; bounds how long stopping may take. */
  waitTimeSeconds?: number;
  log?: (message: string, error?: unknown) => void;
}

/** What the poller is doing: batches running now, and how many have started since it began. */
export interface PollerActivity {
  running: number;
  started: number;
}

export interface Poller {
  /**
   * `started` grows with every batch, so two readings that agree (and show none running) prove
   * that no batch ran in between, not only that none runs at either moment.
   */
  activity(): PollerActivity;
  stop(): Promise<void>;
}

/**
 * Long enough for a batch on a busy machine (seconds, when the API and the workers share two
 * cores with DynamoDB Local), so that batches rarely hold receives back; short enough for a
 * failed message to come back soon.
 */
const DEFAULT_RETRY_VISIBILITY_SECONDS = 10;

function retryVisibilityFromEnvironment(): number {
  const raw = process.env.LOCAL_RETRY_VISIBILITY_SECONDS;
  const seconds = Number(raw);
  return raw && Number.isInteger(seconds) && seconds >= 0 && seconds <= 43_200 ? seconds : DEFAULT_RETRY_VISIBILITY_SECONDS;
}

function toLambdaAttributes(attributes: Record<string, MessageAttributeValue> | undefined): SQSMessageAttributes {
  const converted: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(attributes ?? {})) {
    converted[name] = {
      dataType: value.DataType ?? 'String',
      stringValue: value.StringValue,
      binaryValue: value.BinaryValue ? Buffer.from(value.BinaryValue).toString('base64') : undefined,
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map((item) => Buffer.from(item).toString('base64')),
    };
  }
  return converted;
}

export function toSqsRecord(message: Message, eventSourceARN: string, region: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(attributes.MessageGroupId ? { MessageGroupId: attributes.MessageGroupId } : {}),
      ...(attributes.MessageDeduplicationId ? { MessageDeduplicationId: attributes.MessageDeduplicationId } : {}),
      ...(attributes.SequenceNumber ? { SequenceNumber: attributes.SequenceNumber } : {}),
      ...(attributes.AWSTraceHeader ? { AWSTraceHeader: attributes.AWSTraceHeader } : {}),
    },
    messageAttributes: toLambdaAttributes(message.MessageAttributes),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN,
    awsRegion: region,
  };
}

function queueArnFromUrl(queueUrl: string, region: string): string {
  const [accountId, queueName] = new URL(queueUrl).pathname.split('/').filter(Boolean).slice(-2);
  return `arn:aws:sqs:${region}:${accountId}:${queueName}`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolveSleep) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolveSleep();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * One worker's receives and batches in flight. While the queue has no backlog a worker has one
 * receive out at a time (the slot that makes it hands the next one on as soon as it has its
 * messages), so an idle worker keeps one long poll open rather than one per slot; once a receive
 * comes back full, the free slots receive side by side without waiting, until one comes back
 * short. Each batch in flight has the earliest time its messages can become visible again,
 * which bounds how long a receive may wait.
 */
export class InFlight {
  private readonly batches = new Set<{ visibleAt: number }>();
  private readonly messageIds = new Set<string>();
  private receiving = 0;
  /** The last receive came back full: more messages are likely waiting. */
  private backlog = false;
  private wake: () => void = () => {};
  private changed = new Promise<void>((resolveChange) => (this.wake = resolveChange));

  constructor(
    private readonly visibilityMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The whole seconds a receive sent now may wait and still end before any batch in flight
   * can become visible again; undefined when no receive may be sent now (one is out already
   * and the queue had no backlog, or a batch in flight is too close to becoming visible). With
   * a backlog, receives go out side by side and do not wait.
   */
  allowedWait(longest: number): number | undefined {
    if (this.receiving > 0 && !this.backlog) return undefined;
    let wait = this.backlog ? 0 : longest;
    for (const batch of this.batches) {
      const room = batch.visibleAt - this.now() - RECEIVE_SLACK_MS;
      if (room < 0) return undefined;
      wait = Math.min(wait, Math.floor(room / 1000));
    }
    return wait;
  }

  /** A receive sent at `sentAt`: the messages it takes are hidden from then at the earliest. */
  begin(sentAt: number): { visibleAt: number } {
    const batch = { visibleAt: sentAt + this.visibilityMs };
    this.batches.add(batch);
    this.receiving += 1;
    return batch;
  }

  /**
   * The receive is back (with no messages, or having failed: `messages` empty; `full` when it
   * got as many as it asked for). A first receive stamps the moment it hid a message
   * (ApproximateFirstReceiveTimestamp); of a message received before, that moment is only known
   * to follow the request.
   */
  received(batch: { visibleAt: number }, messages: Message[], sentAt: number, full = false): void {
    this.receiving -= 1;
    this.backlog = full;
    if (messages.length > 0) {
      const hidden = messages.map((message) =>
        message.Attributes?.ApproximateReceiveCount === '1'
          ? Number(message.Attributes.ApproximateFirstReceiveTimestamp) || sentAt
          : sentAt,
      );
      batch.visibleAt = Math.max(sentAt, Math.min(...hidden)) + this.visibilityMs;
      for (const message of messages) this.messageIds.add(message.MessageId ?? '');
    } else {
      this.batches.delete(batch);
    }
    this.signal();
  }

  /** The batch is over: its messages deleted or left to come back. */
  end(batch: { visibleAt: number }, messages: Message[]): void {
    this.batches.delete(batch);
    for (const message of messages) this.messageIds.delete(message.MessageId ?? '');
    this.signal();
  }

  /** A message some batch in flight holds: received again, it must not be handled twice. */
  holds(message: Message): boolean {
    return this.messageIds.has(message.MessageId ?? '');
  }

  /** Resolves when a receive is back or a batch ends. */
  next(): Promise<void> {
    return this.changed;
  }

  private signal() {
    const wake = this.wake;
    this.changed = new Promise<void>((resolveChange) => (this.wake = resolveChange));
    wake();
  }
}

export function startPoller(options: PollerOptions): Poller {
  const client = new SQSClient(localAwsConfig(options.sqsEndpoint, options.region));
  const handlerFor = createHandlerLoader(options.root);
  const stopping = new AbortController();
  // Every receive in flight listens to it, as many as the workers' slots together.
  setMaxListeners(0, stopping.signal);
  const visibility = options.retryVisibilitySeconds ?? retryVisibilityFromEnvironment();
  const waitTimeSeconds = options.waitTimeSeconds ?? 2;
  const log = options.log ?? ((message, error) => console.error(message, error ?? ''));

  async function receive(queueUrl: string, batchSize: number, waitSeconds: number): Promise<Message[]> {
    const request = (max: number, wait: number) =>
      client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: max,
          WaitTimeSeconds: wait,
          VisibilityTimeout: visibility,
          // local-aws-sqs reads the older `AttributeNames`, not `MessageSystemAttributeNames`.
          AttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: stopping.signal },
      );
    // No wait (a backlog, or a batch in flight close to becoming visible): one request.
    if (waitSeconds === 0) return (await request(Math.min(batchSize, 10), 0)).Messages ?? [];
    // local-aws-sqs answers a long poll only when the batch is full or the wait is over, so
    // wait for one message, then collect whatever else is already there without waiting.
    const first = (await request(1, waitSeconds)).Messages ?? [];
    if (first.length === 0 || batchSize <= 1) return first;
    const rest = (await request(Math.min(batchSize - 1, 10), 0)).Messages ?? [];
    const seen = new Set(first.map((message) => message.MessageId));
    return [...first, ...rest.filter((message) => !seen.has(message.MessageId))];
  }

  async function deleteSucceeded(queueUrl: string, messages: Message[], failedIds: Set<string>): Promise<void> {
    const entries = messages
      .filter((message) => !failedIds.has(message.MessageId ?? ''))
      .map((message, i) => ({ Id: String(i), ReceiptHandle: message.ReceiptHandle }));
    if (entries.length === 0) return;
    const result = await client.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
    for (const failure of result.Failed ?? []) log(`Could not delete message ${failure.Id}: ${failure.Message}`);
  }

  async function invoke(worker: PolledWorker, queueUrl: string, messages: Message[]): Promise<void> {
    const eventSourceARN = queueArnFromUrl(queueUrl, options.region);
    const event: SQSEvent = { Records: messages.map((message) => toSqsRecord(message, eventSourceARN, options.region)) };
    const context: Context = lambdaContext(worker.operation, options.timeoutSeconds?.[worker.queue] ?? 30, options.region);
    let failedIds: Set<string>;
    try {
      const handler = await handlerFor(worker.handler);
      // A handler that returns nothing resolves to undefined: every message succeeded.
      const response = (await handler(event, context)) as SQSBatchResponse | undefined;
      failedIds = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch (error) {
      // As with Lambda, a thrown error fails the whole batch: every message comes back.
      log(`${worker.operation} failed; ${messages.length} message(s) will be retried`, error);
      return;
    }
    await deleteSucceeded(queueUrl, messages, failedIds);
  }

  const activity: PollerActivity = { running: 0, started: 0 };

  const stopped = new Promise<void>((resolveStop) => stopping.signal.addEventListener('abort', () => resolveStop(), { once: true }));

  /** One of a worker's `maxConcurrency` slots: receives a batch, runs it, and again. */
  async function slot(worker: PolledWorker, queueUrl: string, inFlight: InFlight): Promise<void> {
    while (!stopping.signal.aborted) {
      const wait = inFlight.allowedWait(waitTimeSeconds);
      if (wait === undefined) {
        await Promise.race([inFlight.next(), stopped]);
        continue;
      }
      const sentAt = Date.now();
      const batch = inFlight.begin(sentAt);
      let messages: Message[] = [];
      let full = false;
      try {
        const taken = await receive(queueUrl, worker.batchSize, wait);
        full = taken.length >= Math.min(worker.batchSize, 10);
        // One held by another batch (received again in spite of the above) is left to that batch.
        messages = taken.filter((message) => !inFlight.holds(message));
      } catch (error) {
        inFlight.received(batch, [], sentAt);
        if (stopping.signal.aborted) break;
        log(`Polling ${worker.queue} for ${worker.operation} failed`, error);
        await sleep(1000, stopping.signal);
        continue;
      }
      inFlight.received(batch, messages, sentAt, full);
      if (messages.length === 0) continue;
      activity.started += 1;
      activity.running += 1;
      try {
        await invoke(worker, queueUrl, messages);
      } catch (error) {
        log(`Deleting the handled messages of ${worker.operation} failed`, error);
      } finally {
        activity.running -= 1;
        inFlight.end(batch, messages);
      }
    }
  }

  async function pollLoop(worker: PolledWorker): Promise<void> {
    const queueUrl = options.queueUrls[worker.queue];
    if (!queueUrl) throw new Error(`No queue URL for ${worker.queue} (worker ${worker.operation})`);
    const inFlight = new InFlight(visibility * 1000);
    const slots = Math.max(1, worker.maxConcurrency ?? DEFAULT_CONCURRENCY);
    await Promise.all(Array.from({ length: slots }, () => slot(worker, queueUrl, inFlight)));
  }

  const loops = options.workers.map((worker) => pollLoop(worker));

  return {
    activity: () => ({ ...activity }),
    async stop() {
      stopping.abort();
      await Promise.allSettled(loops);
      client.destroy();
    },
  };
}
