/**
 * Calls the worker handlers with SQS batch events, the way Lambda's event source mapping does:
 * up to `batchSize` messages per invocation; messages the handler lists in `batchItemFailures`
 * (or the whole batch, if it throws) stay on the queue and come back after their visibility
 * timeout; the rest are deleted. After `maxReceiveCount` receives the queue's redrive policy
 * moves a failing message to the dead-letter queue.
 *
 * Locally the visibility timeout of a receive is short (`retryVisibilitySeconds`), so a failed
 * message returns within seconds instead of minutes. Each worker runs one batch at a time, so a
 * handler that outlives that timeout does not see its own messages again while still running.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SQSClient,
  type Message,
  type MessageAttributeValue,
} from '@aws-sdk/client-sqs';
import { localAwsConfig } from './aws-clients.ts';
import { createHandlerLoader } from './handler-modules.ts';
import { lambdaContext } from './lambda-context.ts';

export interface PolledWorker {
  operation: string;
  queue: string;
  handler: string;
  batchSize: number;
}

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

export interface Poller {
  stop(): Promise<void>;
}

function retryVisibilityFromEnvironment(): number {
  const seconds = Number(process.env.LOCAL_RETRY_VISIBILITY_SECONDS);
  return Number.isInteger(seconds) && seconds >= 0 && seconds <= 43_200 ? seconds : 2;
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
    const timer = setTimeout(resolveSleep, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolveSleep();
    }, { once: true });
  });
}

export function startPoller(options: PollerOptions): Poller {
  const client = new SQSClient(localAwsConfig(options.sqsEndpoint, options.region));
  const handlerFor = createHandlerLoader(options.root);
  const stopping = new AbortController();
  const visibility = options.retryVisibilitySeconds ?? retryVisibilityFromEnvironment();
  const waitTimeSeconds = options.waitTimeSeconds ?? 2;
  const log = options.log ?? ((message, error) => console.error(message, error ?? ''));

  async function receive(queueUrl: string, batchSize: number): Promise<Message[]> {
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
    // local-aws-sqs answers a long poll only when the batch is full or the wait is over, so
    // wait for one message, then collect whatever else is already there without waiting.
    const first = (await request(1, waitTimeSeconds)).Messages ?? [];
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
      const response = (await handler(event, context)) as SQSBatchResponse | undefined | void;
      failedIds = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch (error) {
      // As with Lambda, a thrown error fails the whole batch: every message comes back.
      log(`${worker.operation} failed; ${messages.length} message(s) will be retried`, error);
      return;
    }
    await deleteSucceeded(queueUrl, messages, failedIds);
  }

  async function pollLoop(worker: PolledWorker): Promise<void> {
    const queueUrl = options.queueUrls[worker.queue];
    if (!queueUrl) throw new Error(`No queue URL for ${worker.queue} (worker ${worker.operation})`);
    while (!stopping.signal.aborted) {
      try {
        const messages = await receive(queueUrl, worker.batchSize);
        if (messages.length > 0) await invoke(worker, queueUrl, messages);
      } catch (error) {
        if (stopping.signal.aborted) break;
        log(`Polling ${worker.queue} for ${worker.operation} failed`, error);
        await sleep(1000, stopping.signal);
      }
    }
  }

  const loops = options.workers.map((worker) => pollLoop(worker));

  return {
    async stop() {
      stopping.abort();
      await Promise.allSettled(loops);
      client.destroy();
    },
  };
}
