/**
 * Sending work to the service's queues. The queue URL comes from the variable the route table's
 * `queue:<name>` access puts on the function.
 */
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { serviceClient } from './client-hooks.ts';
import { config } from './config.ts';
import { queues } from './queues.ts';
import type { QueueName } from './routes.ts';
import { traced } from './tracer.ts';

let client: SQSClient | undefined;
const sqs = () => (client ??= serviceClient(traced(new SQSClient({})), 'sqs'));

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

/** A message `enqueueEach` could not send: its index in the list, and why. */
export interface Unsent {
  index: number;
  reason: string;
}

/**
 * Sends several messages, 10 to a request, the requests side by side; answers the messages that
 * were not sent (those SQS refused, and every message of a request that failed), so that a caller
 * can retry exactly those.
 */
export async function enqueueEach(queue: QueueName, messages: readonly unknown[], delaySeconds = 0): Promise<Unsent[]> {
  const url = config.queueUrl(queues[queue].urlVariable);
  const delay = Math.min(Math.max(0, Math.round(delaySeconds)), MAX_DELAY_SECONDS);
  const starts = Array.from({ length: Math.ceil(messages.length / BATCH) }, (_, i) => i * BATCH);
  const unsent = await Promise.all(
    starts.map(async (start) => {
      const chunk = messages.slice(start, start + BATCH);
      try {
        const { Failed } = await sqs().send(
          new SendMessageBatchCommand({
            QueueUrl: url,
            Entries: chunk.map((message, j) => ({ Id: String(j), MessageBody: JSON.stringify(message), DelaySeconds: delay })),
          }),
        );
        return (Failed ?? []).map(
          (failure): Unsent => ({ index: start + Number(failure.Id), reason: failure.Message ?? failure.Code ?? 'refused' }),
        );
      } catch (error) {
        return chunk.map((_, j): Unsent => ({ index: start + j, reason: (error as Error).message }));
      }
    }),
  );
  return unsent.flat();
}
