/**
 * Consumes the webhooks queue: each message is one delivery attempt of one webhook event
 * (shared/events/deliver.ts); the endpoints of a batch are read together, before its attempts.
 * A message that fails (a malformed one, a store error) is reported as a batch item failure, so
 * SQS delivers it again and, after maxReceiveCount receives, moves it to the dead-letter queue;
 * one whose attempt is in progress elsewhere is sent again, due when that run's lease ends.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { processDelivery, readEndpoints } from '#shared/events/deliver.ts';
import { type DeliveryMessage, parseDeliveryMessage } from '#shared/events/messages.ts';
import { tracedWorker } from '#shared/tracer.ts';

export const handler = tracedWorker('workers.deliverWebhook', async (event: SQSEvent, context: Context) => {
  // The endpoints of the whole batch in one read; a malformed message fails on its own below.
  const endpoints = await readEndpoints(
    event.Records.flatMap((record): DeliveryMessage[] => {
      try {
        return [parseDeliveryMessage(record.body)];
      } catch {
        return [];
      }
    }),
  );
  return processPartialResponse(
    event,
    async (record: SQSRecord) => {
      await processDelivery(parseDeliveryMessage(record.body), context, endpoints);
    },
    // One processor per invocation: it keeps the batch's state, and the local stack runs
    // several invocations of a worker at once in one process.
    new BatchProcessor(EventType.SQS),
    { context },
  );
});
