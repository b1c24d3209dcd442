import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { HttpApi, HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Key } from 'aws-cdk-lib/aws-kms';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { QueueName, Route, Worker } from '../shared/routes.ts';
import { fallback as fallbackRoute, routes as routeTable, workers as workerTable } from '../shared/routes.ts';
import { Api, type FallbackRoute } from './api.ts';
import { constructIdOf } from './construct-id.ts';
import { Data } from './data.ts';
import { ServiceQueues } from './queues.ts';
import type { RouteFamily } from './route-family.ts';
import { repositoryRoot, type ServiceContext, type ServiceFunction } from './service-function.ts';
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

/**
 * The licensing service: the HTTP API and its functions over one table, and the queues that carry
 * slow work. This stack holds the table, the sealing key, the queues, the API with its stage and
 * the queue workers; each route family's functions and routes live in a nested stack of their own
 * (`families`), deployed with it.
 */
export class LicensingStack extends Stack {
  /** The HTTP API; its routes are added by the family stacks. */
  readonly httpApi: HttpApi;
  /** The API's `$default` stage, the one requests reach. */
  readonly defaultStage: HttpStage;
  /**
   * The API's route families (lib/families.ts), each a nested stack holding its routes and their
   * functions, the fallback included. What watches one family's functions is best built in its
   * stack: each value the parent takes from a family stack costs that stack an output.
   */
  readonly families: readonly RouteFamily[];
  /** The queue consumers' functions, by operation. */
  readonly workerFunctions: ReadonlyMap<string, ServiceFunction>;
  readonly table: TableV2;
  readonly sealingKey: Key;
  readonly queues: Readonly<Record<QueueName, Queue>>;
  readonly deadLetterQueues: Readonly<Record<QueueName, Queue>>;

  constructor(scope: Construct, id: string, props: LicensingStackProps) {
    super(scope, id, props);
    const { settings } = props;

    const data = new Data(this, 'Data');
    const queues = new ServiceQueues(this, 'Queues');
    const api = new Api(this, 'Api');
    this.httpApi = api.httpApi;
    this.defaultStage = api.defaultStage;
    this.table = data.table;
    this.sealingKey = data.sealingKey;
    this.queues = queues.queues;
    this.deadLetterQueues = queues.deadLetterQueues;

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

    this.families = api.serve(props.routes ?? routeTable, props.fallback ?? fallbackRoute, context);
    // The workers are few and bound to the queues: they stay here, beside them.
    this.workerFunctions = new Workers(this, 'Workers', {
      workers: props.workers ?? workerTable,
      queues: queues.queues,
      context,
    }).functions;

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
