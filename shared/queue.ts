/**
 * Sending work to the service's queues. The queue URL comes from the variable the route table's
 * `queue:<name>` access puts on the function.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config } from './config.ts';
import { queues } from './queues.ts';
import type { QueueName } from './routes.ts';

let client: SQSClient | undefined;
const sqs = () => (client ??= new SQSClient({}));

/** SQS delays a message by at most 15 minutes. */
export const MAX_DELAY_SECONDS = 900;

export async function enqueue(queue: QueueName, message: unknown, delaySeconds = 0): Promise<void> {
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: config.queueUrl(queues[queue].urlVariable),
      MessageBody: JSON.stringify(message),
      DelaySeconds: Math.min(Math.max(0, Math.round(delaySeconds)), MAX_DELAY_SECONDS),
    }),
  );
}
