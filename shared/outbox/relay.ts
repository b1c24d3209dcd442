/**
 * The relay: hands the outbox records of a batch of stream records (shared/outbox/entries.ts) to
 * their queues, one message each, the messages of one queue sent together, 10 to a request.
 *
 * Answers the records it could not relay as batch item failures (their sequence numbers): the
 * event source retries the batch from the first of them, so a record that was relayed may be
 * relayed again, which every consumer takes in its stride. A record whose image cannot make its
 * message fails by itself, and ends with its batch's description in the relay's on-failure queue
 * once its retries are spent (docs/operations.md, "The outbox relay").
 */
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { logger } from '../logger.ts';
import { enqueueEach } from '../queue.ts';
import type { QueueName } from '../routes.ts';
import type { AccessPattern } from '../store/data-model.ts';
import { entryOf } from './entries.ts';

interface Outgoing {
  record: DynamoDBRecord;
  entry: string;
  message: unknown;
}

export async function relay(records: readonly DynamoDBRecord[]): Promise<DynamoDBBatchResponse> {
  const failed = new Set<DynamoDBRecord>();
  const byQueue = new Map<QueueName, Outgoing[]>();
  for (const record of records) {
    // A record of no entry (on AWS the filters keep them away) has nothing to send.
    const found = entryOf(record);
    if (!found) continue;
    try {
      const outgoing = { record, entry: found.entry.name, message: found.entry.message(found.image) };
      byQueue.set(found.entry.queue, [...(byQueue.get(found.entry.queue) ?? []), outgoing]);
    } catch (error) {
      logger.error('outbox record not relayed: its item cannot make its message', {
        ...describe(record),
        entry: found.entry.name,
        error: error as Error,
      });
      failed.add(record);
    }
  }
  await Promise.all(
    [...byQueue].map(async ([queue, outgoing]) => {
      const unsent = await enqueueEach(
        queue,
        outgoing.map(({ message }) => message),
      );
      for (const { index, reason } of unsent) {
        const { record, entry } = outgoing[index] as Outgoing;
        logger.warn('outbox record not relayed: its message was not sent; the batch is retried from it', {
          ...describe(record),
          entry,
          queue,
          reason,
        });
        failed.add(record);
      }
    }),
  );
  return {
    batchItemFailures: records
      .filter((record) => failed.has(record))
      .map((record) => ({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' })),
  };
}

const describe = (record: DynamoDBRecord) => ({
  eventName: record.eventName,
  sequenceNumber: record.dynamodb?.SequenceNumber,
  keys: record.dynamodb?.Keys,
});

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 61,
    name: 'Relay what committed changes ask to be sent',
    operation:
      "The table's stream (old and new images), read by the relay's event source: on AWS, Lambda's DynamoDB event source with its filters (`INSERT` with the new image's `type` one of `webhook-events`, `password-reset-requests`; `REMOVE` with the old image's `type` `environments`: shared/outbox/entries.ts); locally, DescribeStream, GetShardIterator and GetRecords over every shard (dev/local/streams.ts). Each record let through is one message, built from its image alone: no read of the table",
    index: 'stream',
    key: "the stream's records (keys and images)",
    usedBy: 'workers.relayOutbox',
    tests: ['unit/outbox', 'http/outbox', 'http/stream-poller'],
  },
];
