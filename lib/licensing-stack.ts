import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { QueueName, Route, Worker } from '../shared/routes.ts';
import { fallback as fallbackRoute, routes as routeTable, workers as workerTable } from '../shared/routes.ts';
import { Api, type FallbackRoute } from './api.ts';
import { constructIdOf } from './construct-id.ts';
import { Data } from './data.ts';
import { ServiceQueues } from './queues.ts';
import { repositoryRoot, type ServiceContext } from './service-function.ts';
import type { OperatorSettings } from './settings.ts';
import { Workers } from './workers.ts';

export interface LicensingStackProps extends StackProps {
  settings: OperatorSettings;
  /** The API's routes; the route table's by default. */
  routes?: readonly Route[];
  /** The function that answers unmatched requests; the route table's by default. */
  fallback?: FallbackRoute;
  /** The queue consumers; the route table's by default. */
  workers?: readonly Worker[];
  /** Directory the handler paths are relative to; the repository root by default. */
  codeRoot?: string;
}

/** The licensing service: the HTTP API and its functions over one table, and the queues that carry slow work. */
export class LicensingStack extends Stack {
  constructor(scope: Construct, id: string, props: LicensingStackProps) {
    super(scope, id, props);
    const { settings } = props;

    const data = new Data(this, 'Data');
    const queues = new ServiceQueues(this, 'Queues');
    const api = new Api(this, 'Api');

    const context: ServiceContext = {
      codeRoot: props.codeRoot ?? repositoryRoot,
      resources: { table: data.table, queues: queues.queues, mailFrom: settings.mailFrom, sealingKey: data.sealingKey },
      environment: {
        TABLE_NAME: data.table.tableName,
        PUBLIC_URL: settings.publicUrl ?? api.endpoint,
        ALLOW_PRIVATE_WEBHOOK_TARGETS: String(settings.allowPrivateWebhookTargets),
        ...(settings.webhookRetryDelays !== undefined && { WEBHOOK_RETRY_DELAYS: settings.webhookRetryDelays }),
        ...(settings.rateLimitPerAddress !== undefined && { RATE_LIMIT_PER_ADDRESS: String(settings.rateLimitPerAddress) }),
      },
    };

    api.serve(props.routes ?? routeTable, props.fallback ?? fallbackRoute, context);
    new Workers(this, 'Workers', { workers: props.workers ?? workerTable, queues: queues.queues, context });

    new CfnOutput(this, 'ApiUrl', { value: api.endpoint, description: 'Base URL of the API' });
    new CfnOutput(this, 'TableName', { value: data.table.tableName, description: 'The service table' });
    new CfnOutput(this, 'SealingKeyArn', { value: data.sealingKey.keyArn, description: 'The KMS key that seals secrets at rest' });
    for (const name of Object.keys(queues.queues) as QueueName[]) {
      const id = constructIdOf(name);
      new CfnOutput(this, `${id}QueueUrl`, { value: queues.queues[name].queueUrl, description: `The ${name} queue` });
      new CfnOutput(this, `${id}DeadLetterQueueUrl`, {
        value: queues.deadLetterQueues[name].queueUrl,
        description: `Where ${name} messages go after their last failed attempt`,
      });
    }
  }
}
