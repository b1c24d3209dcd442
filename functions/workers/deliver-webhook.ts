/**
 * Consumes the webhooks queue: each message is one delivery attempt of one webhook event
 * (shared/events/deliver.ts). A message that fails (a malformed one, a store error, an attempt
 * already in progress elsewhere) is reported as a batch item failure, so SQS delivers it again
 * and, after maxReceiveCount receives, moves it to the dead-letter queue.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { processDelivery } from '#shared/events/deliver.ts';
import { parseDeliveryMessage } from '#shared/events/messages.ts';

export const handler = async (event: SQSEvent, context: Context) =>
  processPartialResponse(
    event,
    async (record: SQSRecord) => {
      await processDelivery(parseDeliveryMessage(record.body), context);
    },
    // One processor per invocation: it keeps the batch's state, and the local stack runs
    // several invocations of a worker at once in one process.
    new BatchProcessor(EventType.SQS),
    { context },
  );
