/**
 * Consumes the cascades queue: one message is one bounded step of a cascade, what hangs on a
 * record removed at once or a deleted user's owner links (shared/licensing/cascade.ts). A
 * failed step is reported as a batch item failure, so SQS delivers it again and, after too many
 * tries, moves it to the dead-letter queue.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { type CascadeStep, runCascadeStep } from '#shared/licensing/cascade.ts';
import { tracedWorker } from '#shared/tracer.ts';

export const handler = tracedWorker('workers.cascade', async (event: SQSEvent, context: Context) =>
  processPartialResponse(
    event,
    async (record: SQSRecord) => {
      await runCascadeStep(JSON.parse(record.body) as CascadeStep, () => context.getRemainingTimeInMillis());
    },
    // One processor per invocation: it keeps the batch's state, and the local stack runs
    // several invocations of a worker at once in one process.
    new BatchProcessor(EventType.SQS),
    { context },
  ),
);
