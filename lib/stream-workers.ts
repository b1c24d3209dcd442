import { Duration, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { StreamWorker } from '../shared/routes.ts';
import { constructIdOf } from './construct-id.ts';
import { type ServiceContext, type ServiceFunction, workerFunction } from './service-function.ts';

export interface StreamWorkersProps {
  workers: readonly StreamWorker[];
  /** The table, with its stream. */
  table: ITableV2;
  context: ServiceContext;
}

/**
 * One function per stream worker of the route table (the outbox relay), fed by the table's stream
 * the way the local stream poller imitates (dev/local/streams.ts), each with its on-failure
 * queue: where the event source describes a batch it gave up on (its shard and sequence numbers),
 * so that no record is dropped without a trace, and an alarm raised while that queue holds any.
 */
export class StreamWorkers extends Construct {
  /** The functions, by operation. */
  readonly functions: ReadonlyMap<string, ServiceFunction>;
  /** Their on-failure queues, by operation. */
  readonly failureQueues: ReadonlyMap<string, Queue>;
  /** Raised while an on-failure queue holds a description; lib/monitoring.ts gives them their actions. */
  readonly failureAlarms: readonly Alarm[];

  constructor(scope: Construct, id: string, props: StreamWorkersProps) {
    super(scope, id);

    const functions = new Map<string, ServiceFunction>();
    const failureQueues = new Map<string, Queue>();
    const failureAlarms: Alarm[] = [];
    for (const worker of props.workers) {
      const workerId = constructIdOf(worker.operation);
      const fn = workerFunction(this, worker, 'stream consumer', worker.timeoutSeconds, props.context);

      const failures = new Queue(this, `${workerId}FailureQueue`, {
        retentionPeriod: Duration.seconds(worker.failureRetentionSeconds),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
      Validations.of(failures).acknowledge({
        id: 'AwsSolutions-SQS3',
        reason:
          'It is the on-failure destination of the stream event source, the dead-letter queue of the stream records, which the ' +
          'check recognises only in a redrive policy; nothing consumes it, so it needs no dead-letter queue of its own',
      });
      failureAlarms.push(
        new Alarm(this, `${workerId}FailureAlarm`, {
          alarmDescription: `${worker.operation} gave up on a batch of stream records after ${worker.retryAttempts} retries; its description waits in the on-failure queue. See docs/operations.md, "The outbox relay".`,
          metric: failures.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );

      // Grants the function the stream's reads (on the table's stream only) and the sends to its on-failure queue.
      fn.addEventSource(
        new DynamoEventSource(props.table, {
          startingPosition: StartingPosition.TRIM_HORIZON,
          batchSize: worker.batchSize,
          maxBatchingWindow: Duration.seconds(worker.maxBatchingWindowSeconds),
          bisectBatchOnError: true,
          reportBatchItemFailures: true,
          retryAttempts: worker.retryAttempts,
          maxRecordAge: Duration.seconds(worker.maxRecordAgeSeconds),
          onFailure: new SqsDlq(failures),
          filters: worker.filters.map((pattern) => FilterCriteria.filter(pattern)),
        }),
      );
      functions.set(worker.operation, fn);
      failureQueues.set(worker.operation, failures);
    }
    this.functions = functions;
    this.failureQueues = failureQueues;
    this.failureAlarms = failureAlarms;
  }
}
