/**
 * The SQS-compatible server (`local-aws-sqs`), with the same queues and dead-letter queues as
 * the CDK stack. It keeps messages in memory: a restart of the local stack drops queued work.
 */
import { createServer, type Server } from 'node:http';
import { createRequestHandler, type ISqsServerOptions } from 'local-aws-sqs';
import { queues, type QueueDefinition } from '#shared/queues.ts';
import type { QueueName } from '#shared/routes.ts';
import { closeServer, listeningPort } from './servers.ts';

export const LOCAL_ACCOUNT_ID = '123456789012';

export function localQueueName(queue: QueueName): string {
  return `licensing-${queue}`;
}

export function deadLetterQueueName(queue: QueueName): string {
  return `${localQueueName(queue)}-dlq`;
}

export function queueArn(region: string, queueName: string): string {
  return `arn:aws:sqs:${region}:${LOCAL_ACCOUNT_ID}:${queueName}`;
}

export interface LocalSqs {
  endpoint: string;
  port: number;
  queueUrls: Record<QueueName, string>;
  /** URL of a queue by its full name, e.g. for the dead-letter queues. */
  queueUrl(queueName: string): string;
  stop(): Promise<void>;
}

type InitialQueue = NonNullable<ISqsServerOptions['queues']>[number];

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

export async function startSqs(options: { port: number; region: string }): Promise<LocalSqs> {
  const names = Object.keys(queues) as QueueName[];
  const { service, requestHandler } = createRequestHandler({
    port: options.port,
    hostname: '127.0.0.1',
    region: options.region,
    accountId: LOCAL_ACCOUNT_ID,
    queues: names.flatMap((name) => queuePair(options.region, name, queues[name])),
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
  return { endpoint, port, queueUrls, queueUrl, stop: () => closeServer(server) };
}
