import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { workerTimeoutSeconds } from '../shared/queues.ts';
import type { QueueName, Worker } from '../shared/routes.ts';
import { type ServiceContext, type ServiceFunction, workerFunction } from './service-function.ts';

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
      const fn = workerFunction(this, worker, 'queue consumer', workerTimeoutSeconds[worker.queue], props.context);
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
