/**
 * Sending work to the service's queues. The queue URL comes from the variable the route table's
 * `queue:<name>` access puts on the function.
 */
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config } from './config.ts';
import { withFaults } from './faults.ts';
import { queues } from './queues.ts';
import type { QueueName } from './routes.ts';
import { traced } from './tracer.ts';

let client: SQSClient | undefined;
const sqs = () => (client ??= withFaults(traced(new SQSClient({})), 'sqs'));

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

/** SQS takes at most 10 messages in one SendMessageBatch. */
const BATCH = 10;

/**
 * Sends several messages, 10 to a request. Throws if any message could not be sent (after
 * the whole list was tried), naming how many failed.
 */
export async function enqueueAll(queue: QueueName, messages: readonly unknown[], delaySeconds = 0): Promise<void> {
  const url = config.queueUrl(queues[queue].urlVariable);
  const delay = Math.min(Math.max(0, Math.round(delaySeconds)), MAX_DELAY_SECONDS);
  let failed = 0;
  for (let i = 0; i < messages.length; i += BATCH) {
    const chunk = messages.slice(i, i + BATCH);
    const { Failed } = await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: chunk.map((message, j) => ({ Id: String(j), MessageBody: JSON.stringify(message), DelaySeconds: delay })),
      }),
    );
    failed += Failed?.length ?? 0;
  }
  if (failed > 0) throw new Error(`${failed} of ${messages.length} messages could not be sent to the ${queue} queue`);
}
