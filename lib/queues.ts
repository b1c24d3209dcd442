import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type QueueDefinition, queues as queueDefinitions } from '../shared/queues.ts';
import type { QueueName } from '../shared/routes.ts';
import { constructIdOf } from './construct-id.ts';

/** One queue per definition in shared/queues.ts, each with its own dead-letter queue. */
export class ServiceQueues extends Construct {
  readonly queues = {} as Record<QueueName, Queue>;
  readonly deadLetterQueues = {} as Record<QueueName, Queue>;
  /** Raised while a dead-letter queue holds a message; lib/monitoring.ts gives them their actions. */
  readonly deadLetterAlarms = {} as Record<QueueName, Alarm>;

  constructor(scope: Construct, id: string) {
    super(scope, id);

    for (const [name, definition] of Object.entries(queueDefinitions) as [QueueName, QueueDefinition][]) {
      const deadLetterQueue = this.createDeadLetterQueue(name, definition);
      this.deadLetterQueues[name] = deadLetterQueue;
      this.queues[name] = new Queue(this, `${constructIdOf(name)}Queue`, {
        visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
        // SQS's own key: messages carry ids, an e-mail address and attempt counts, no secret
        // (docs/operations.md, Well-architected checks); a key of ours would have to be granted
        // to every sender and consumer.
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
      });
    }
  }

  /**
   * A dead-letter queue and an alarm that is raised while it holds any message: each one is
   * work that was given up on after the last attempt, and waits there to be looked at.
   */
  private createDeadLetterQueue(name: QueueName, definition: QueueDefinition): Queue {
    const id = constructIdOf(name);
    const deadLetterQueue = new Queue(this, `${id}DeadLetterQueue`, {
      retentionPeriod: Duration.seconds(definition.deadLetterRetentionSeconds),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.deadLetterAlarms[name] = new Alarm(this, `${id}DeadLetterAlarm`, {
      alarmDescription: `Messages of the ${name} queue failed ${definition.maxReceiveCount} times and wait in its dead-letter queue.`,
      metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    return deadLetterQueue;
  }
}
