import { Duration } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { workerTimeoutSeconds } from '../shared/queues.ts';
import type { QueueName, Worker } from '../shared/routes.ts';
import { grantAccess } from './access.ts';
import { constructIdOf } from './construct-id.ts';
import { type ServiceContext, ServiceFunction } from './service-function.ts';

export interface WorkersProps {
  workers: readonly Worker[];
  queues: Record<QueueName, IQueue>;
  context: ServiceContext;
}

/** One function per queue consumer, fed by its queue the way the local poller imitates. */
export class Workers extends Construct {
  /** The consumers' functions, by operation. */
  readonly functions: ReadonlyMap<string, ServiceFunction>;

  constructor(scope: Construct, id: string, props: WorkersProps) {
    super(scope, id);

    const functions = new Map<string, ServiceFunction>();
    for (const worker of props.workers) {
      const workerId = constructIdOf(worker.operation);
      // The log group and the role are made here rather than left to the function: the role may
      // write to this log group only, where AWS's basic execution policy would let it write to any.
      const logGroup = new LogGroup(this, `${workerId}Logs`, { retention: RetentionDays.ONE_MONTH });
      const role = new Role(this, `${workerId}Role`, {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
        description: `The ${worker.operation} queue consumer`,
      });
      logGroup.grantWrite(role);
      grantAccess(this, role, worker.access, props.context.resources);

      const fn = new ServiceFunction(this, workerId, {
        ...props.context,
        operation: worker.operation,
        handlerModule: worker.handler,
        access: worker.access,
        timeout: Duration.seconds(workerTimeoutSeconds[worker.queue]),
        role,
        logGroup,
      });
      // Partial batch failures: only the messages a worker reports as failed are retried,
      // and only they can end up in the dead-letter queue. The local poller keeps the same
      // number of batches in flight as the maximum concurrency given here.
      fn.addEventSource(
        new SqsEventSource(props.queues[worker.queue], {
          batchSize: worker.batchSize,
          maxConcurrency: worker.maxConcurrency,
          reportBatchItemFailures: true,
        }),
      );
      functions.set(worker.operation, fn);
    }
    this.functions = functions;
  }
}
