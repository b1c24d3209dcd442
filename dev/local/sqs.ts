/**
 * The SQS-compatible server (`local-aws-sqs`), with the same queues and dead-letter queues as
 * the CDK stack, and the stream workers' on-failure queues. It keeps messages in memory: a
 * restart of the local stack drops queued work.
 */
import { createServer, type Server } from 'node:http';
import { createRequestHandler, type ISqsServerOptions } from 'local-aws-sqs';
import { type QueueDefinition, queues } from '#shared/queues.ts';
import type { QueueName } from '#shared/routes.ts';
import { DUE_SOON_SECONDS, type QueueState } from './idle.ts';
import { closeServer, listeningPort } from './servers.ts';

export const LOCAL_ACCOUNT_ID = '123456789012';

export function localQueueName(queue: QueueName): string {
  return `licensing-${queue}`;
}

export function deadLetterQueueName(queue: QueueName): string {
  return `${localQueueName(queue)}-dlq`;
}

/** A stream worker's on-failure queue (lib/stream-workers.ts), named after its operation. */
export function failureQueueName(operation: string): string {
  return `licensing-${operation.replace(/[^A-Za-z0-9_-]/g, '-')}-failures`;
}

/** How long an on-failure queue keeps a description: as long as SQS can. */
const FAILURE_RETENTION_SECONDS = 14 * 86400;

export function queueArn(region: string, queueName: string): string {
  return `arn:aws:sqs:${region}:${LOCAL_ACCOUNT_ID}:${queueName}`;
}

export interface LocalSqs {
  endpoint: string;
  port: number;
  queueUrls: Record<QueueName, string>;
  /** URL of a queue by its full name, e.g. for the dead-letter queues. */
  queueUrl(queueName: string): string;
  /** What each of the stack's queues holds now (idle.ts), read in this process. */
  queueStates(): Record<QueueName, QueueState>;
  /** Calls `listener` with each message a queue of the stack takes, as it takes it (the benchmarks time the relay so); returns its removal. */
  onMessage(listener: (queue: QueueName, body: string) => void): () => void;
  stop(): Promise<void>;
}

type InitialQueue = NonNullable<ISqsServerOptions['queues']>[number];
type ServiceQueue = ReturnType<typeof createRequestHandler>['service']['Queues'][number];

/**
 * When each delayed message of a queue is due, which SQS does not tell: local-aws-sqs makes
 * every message sent through `newRecord` (with its DelaySeconds, the queue's own when none),
 * so that is where it is noted. An entry leaves when its delay ends.
 */
function watchDelays(queue: ServiceQueue): () => { dueSoon: number; later: number } {
  const dueTimes = new Set<{ dueAt: number }>();
  const newRecord = queue.newRecord;
  queue.newRecord = (message, delay) => {
    const seconds = delay === undefined || Number.isNaN(Number(delay)) ? queue.DelaySeconds : Number(delay);
    const entry = { dueAt: Date.now() + seconds * 1000 };
    dueTimes.add(entry);
    setTimeout(() => dueTimes.delete(entry), seconds * 1000).unref();
    return newRecord(message, delay);
  };
  return () => {
    const soon = Date.now() + DUE_SOON_SECONDS * 1000;
    let dueSoon = 0;
    for (const { dueAt } of dueTimes) if (dueAt <= soon) dueSoon += 1;
    return { dueSoon, later: dueTimes.size - dueSoon };
  };
}

/** Messages ready or in flight, from the queue's own attributes, with its delayed ones by when they are due. */
function queueState(queue: ServiceQueue, delays: () => { dueSoon: number; later: number }): QueueState {
  const attributes = queue.getAttributes(['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible']) as Record<
    string,
    string
  >;
  // ApproximateNumberOfMessages counts every message past its delay, in flight or not.
  const inFlight = Number(attributes.ApproximateNumberOfMessagesNotVisible);
  return { waiting: Number(attributes.ApproximateNumberOfMessages) - inFlight, inFlight, ...delays() };
}

function queuePair(region: string, name: QueueName, definition: QueueDefinition): InitialQueue[] {
  const deadLetter = deadLetterQueueName(name);
  return [
    { QueueName: deadLetter, Attributes: { MessageRetentionPeriod: definition.deadLetterRetentionSeconds } },
    {
      QueueName: localQueueName(name),
      Attributes: {
        VisibilityTimeout: definition.visibilityTimeoutSeconds,
        RedrivePolicy: JSON.stringify({
          maxReceiveCount: definition.maxReceiveCount,
          deadLetterTargetArn: queueArn(region, deadLetter),
        }),
      },
    },
  ];
}

export async function startSqs(options: { port: number; region: string; failureQueues?: readonly string[] }): Promise<LocalSqs> {
  const names = Object.keys(queues) as QueueName[];
  const { service, requestHandler } = createRequestHandler({
    port: options.port,
    hostname: '127.0.0.1',
    region: options.region,
    accountId: LOCAL_ACCOUNT_ID,
    queues: [
      ...names.flatMap((name) => queuePair(options.region, name, queues[name])),
      ...(options.failureQueues ?? []).map((QueueName) => ({
        QueueName,
        Attributes: { MessageRetentionPeriod: FAILURE_RETENTION_SECONDS },
      })),
    ],
  });
  // Our own server rather than the package's createSqsServer, which crashes the process when
  // the port is taken instead of reporting it.
  const server: Server = createServer(requestHandler);
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolveListen());
  });
  const port = listeningPort(server);
  // Queue URLs are built from the service's port: the real one, when port 0 was asked for.
  service.PORT = port;
  const endpoint = `http://127.0.0.1:${port}`;
  const queueUrl = (queueName: string) => `${endpoint}/${LOCAL_ACCOUNT_ID}/${queueName}`;
  const queueUrls = Object.fromEntries(names.map((name) => [name, queueUrl(localQueueName(name))])) as Record<QueueName, string>;
  const watched = names.map((name) => {
    const queue = service.Queues.find((candidate) => candidate.QueueName === localQueueName(name));
    if (!queue) throw new Error(`The SQS server has no queue ${localQueueName(name)}`);
    return { name, queue, delays: watchDelays(queue) };
  });
  const listeners = new Set<(queue: QueueName, body: string) => void>();
  for (const { name, queue } of watched) {
    const newRecord = queue.newRecord;
    queue.newRecord = (message, delay) => {
      for (const listener of listeners) listener(name, message.MessageBody);
      return newRecord(message, delay);
    };
  }
  const onMessage = (listener: (queue: QueueName, body: string) => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
  const queueStates = () =>
    Object.fromEntries(watched.map(({ name, queue, delays }) => [name, queueState(queue, delays)])) as Record<QueueName, QueueState>;
  return { endpoint, port, queueUrls, queueUrl, queueStates, onMessage, stop: () => closeServer(server) };
}
