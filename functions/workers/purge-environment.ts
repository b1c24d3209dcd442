/**
 * Consumes the purge queue: one message is one bounded step of an environment's purge
 * (shared/resources/environments/purge.ts). A failed step is reported as a batch item failure,
 * so SQS delivers it again and, after too many tries, moves it to the dead-letter queue.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { type PurgeStep, runPurgeStep } from '#shared/resources/environments/purge.ts';
import { tracedWorker } from '#shared/tracer.ts';

export const handler = tracedWorker('workers.purgeEnvironment', async (event: SQSEvent, context: Context) =>
  processPartialResponse(
    event,
    async (record: SQSRecord) => {
      await runPurgeStep(JSON.parse(record.body) as PurgeStep, () => context.getRemainingTimeInMillis());
    },
    // One processor per invocation: it keeps the batch's state, and the local stack runs
    // several invocations of a worker at once in one process.
    new BatchProcessor(EventType.SQS),
    { context },
  ),
);
