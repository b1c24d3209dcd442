/**
 * Consumes the mail queue: one message is one password-reset request (see
 * shared/domain/passwords/reset.ts). Acts once per request id (Powertools idempotency over the
 * service table, records kept 3 days, released when the work fails so SQS can retry it);
 * a request that keeps failing ends in the dead-letter queue.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { processResetRequest } from '#shared/domain/passwords/reset.ts';
import type { ResetMessage } from '#shared/domain/passwords/request.ts';
import { config } from '#shared/config.ts';

const idempotency = new IdempotencyConfig({ eventKeyJmesPath: 'resetId', expiresAfterSeconds: 3 * 24 * 3600 });
let processOnce: ((message: ResetMessage) => Promise<void>) | undefined;

function once() {
  processOnce ??= makeIdempotent(processResetRequest, {
    persistenceStore: new DynamoDBPersistenceLayer({
      tableName: config.tableName,
      keyAttr: 'PK',
      sortKeyAttr: 'SK',
      staticPkValue: 'IDEMPOTENCY#password-reset',
      expiryAttr: 'expiresAt',
    }),
    config: idempotency,
  });
  return processOnce;
}

export const handler = async (event: SQSEvent, context: Context) => {
  idempotency.registerLambdaContext(context);
  return processPartialResponse(
    event,
    async (record: SQSRecord) => once()(JSON.parse(record.body) as ResetMessage),
    // One processor per invocation: it keeps the batch's state, and the local stack runs
    // several invocations of a worker at once in one process.
    new BatchProcessor(EventType.SQS),
    { context },
  );
};
