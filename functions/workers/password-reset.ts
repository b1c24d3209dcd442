/**
 * Consumes the mail queue: one message is one password-reset request (see
 * shared/resources/passwords/reset.ts). Acts once per request id (shared/store/once.ts: a claim
 * kept 3 days, given back when the work fails so SQS can retry it); a request that keeps
 * failing ends in the dead-letter queue.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { workerTimeoutSeconds } from '#shared/queues.ts';
import type { ResetMessage } from '#shared/resources/passwords/request.ts';
import { processResetRequest } from '#shared/resources/passwords/reset.ts';
import { once } from '#shared/store/once.ts';
import { tracedWorker } from '#shared/tracer.ts';

/** A claim outlives any invocation working on it: a crashed one's claim is taken over after this. */
const LEASE_SECONDS = 2 * workerTimeoutSeconds.mail;

export const handler = tracedWorker('workers.passwordReset', async (event: SQSEvent, context: Context) =>
  processPartialResponse(
    event,
    async (record: SQSRecord) => {
      const message = JSON.parse(record.body) as ResetMessage;
      await once('password-reset', message.resetId, () => processResetRequest(message), { leaseSeconds: LEASE_SECONDS });
    },
    // One processor per invocation: it keeps the batch's state, and the local stack runs
    // several invocations of a worker at once in one process.
    new BatchProcessor(EventType.SQS),
    { context },
  ),
);
