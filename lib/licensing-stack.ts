import { CfnOutput, NestedStack, Stack, type StackProps } from 'aws-cdk-lib';
import type { HttpApi, HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Key } from 'aws-cdk-lib/aws-kms';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { Method } from '../shared/access.ts';
import type { QueueName, Route, Schedule, StreamWorker, Worker } from '../shared/routes.ts';
import {
  fallback as fallbackRoute,
  routes as routeTable,
  schedules as scheduleTable,
  streamWorkers as streamWorkerTable,
  workers as workerTable,
} from '../shared/routes.ts';
import { Api, type FallbackRoute } from './api.ts';
import { applyConcurrency } from './concurrency.ts';
import { constructIdOf, functionNameOf } from './construct-id.ts';
import { Data } from './data.ts';
import { Monitoring } from './monitoring.ts';
import { ServiceQueues } from './queues.ts';
import type { RouteFamily } from './route-family.ts';
import { Schedules } from './schedules.ts';
import { repositoryRoot, type ServiceContext, type ServiceFunction } from './service-function.ts';
import type { OperatorSettings } from './settings.ts';
import { ApiStage } from './stage.ts';
import { StreamWorkers } from './stream-workers.ts';
import { Workers } from './workers.ts';

export interface LicensingStackProps extends StackProps {
  settings: OperatorSettings;
  /** The API's routes; the route table's by default. */
  routes?: readonly Route[];
  /** The function that answers unmatched requests; the route table's by default. */
  fallback?: FallbackRoute;
  /** The queue consumers; the route table's by default. */
  workers?: readonly Worker[];
  /** The functions run on a schedule; the route table's by default. */
  schedules?: readonly Schedule[];
  /** The functions fed by the table's stream (the outbox relay); the route table's by default. */
  streamWorkers?: readonly StreamWorker[];
  /** Directory the handler paths are relative to; the repository root by default. */
  codeRoot?: string;
}

/**
 * The licensing service: the HTTP API and its functions over one table, and the queues that carry
 * slow work. This stack holds the table, the sealing key, the queues, the API with its stage, the
 * queue workers, the scheduled functions and the outbox relay the table's stream feeds; each route family's functions and routes live in a nested stack of their own
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
  /** The scheduled functions (the heartbeat sweeper), by operation. */
  readonly scheduleFunctions: ReadonlyMap<string, ServiceFunction>;
  /** The functions the table's stream feeds (the outbox relay), by operation. */
  readonly streamWorkerFunctions: ReadonlyMap<string, ServiceFunction>;
  /** Where their event sources describe the batches they gave up on, by operation. */
  readonly streamFailureQueues: ReadonlyMap<string, Queue>;
  readonly table: TableV2;
  readonly sealingKey: Key;
  readonly signingKeysKey: Key;
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
    this.signingKeysKey = data.signingKeysKey;
    this.queues = queues.queues;
    this.deadLetterQueues = queues.deadLetterQueues;

    const context: ServiceContext = {
      codeRoot: props.codeRoot ?? repositoryRoot,
      stackName: this.stackName,
      tracing: settings.tracing,
      resources: {
        table: data.table,
        queues: queues.queues,
        mailFrom: settings.mailFrom,
        sealingKey: data.sealingKey,
        signingKeysKey: data.signingKeysKey,
      },
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
    // Like the workers, few and fed by no request: beside them.
    this.scheduleFunctions = new Schedules(this, 'Schedules', { schedules: props.schedules ?? scheduleTable, context }).functions;
    // Fed by the table's stream: beside the table.
    const streamWorkers = new StreamWorkers(this, 'StreamWorkers', {
      workers: props.streamWorkers ?? streamWorkerTable,
      table: data.table,
      context,
    });
    this.streamWorkerFunctions = streamWorkers.functions;
    this.streamFailureQueues = streamWorkers.failureQueues;

    const stage = new ApiStage(this, 'Stage', { api: this.httpApi, routes: props.routes ?? routeTable, settings });
    stage.dependOnRoutes(...this.families);
    applyConcurrency(
      Object.fromEntries([
        ...this.families.flatMap((family) => [...family.functions]),
        ...this.workerFunctions,
        ...this.scheduleFunctions,
        ...this.streamWorkerFunctions,
      ]),
      settings,
    );
    const monitoring = this.watch(settings, queues, streamWorkers);

    new CfnOutput(this, 'AlarmTopicArn', {
      value: monitoring.topic.topicArn,
      description: 'The topic every alarm of the service notifies',
    });
    new CfnOutput(this, 'ApiUrl', { value: api.endpoint, description: 'Base URL of the API' });
    new CfnOutput(this, 'TableName', { value: data.table.tableName, description: 'The service table' });
    new CfnOutput(this, 'SealingKeyArn', { value: data.sealingKey.keyArn, description: 'The KMS key that seals secrets at rest' });
    new CfnOutput(this, 'SigningKeysKeyArn', {
      value: data.signingKeysKey.keyArn,
      description: "The KMS key that seals the accounts' signing keys (SIGNING_KMS_KEY for the operator CLI)",
    });
    for (const name of Object.keys(queues.queues) as QueueName[]) {
      const id = constructIdOf(name);
      new CfnOutput(this, `${id}QueueUrl`, { value: queues.queues[name].queueUrl, description: `The ${name} queue` });
      new CfnOutput(this, `${id}DeadLetterQueueUrl`, {
        value: queues.deadLetterQueues[name].queueUrl,
        description: `Where ${name} messages go after their last failed attempt`,
      });
    }
    for (const [operation, queue] of this.streamFailureQueues) {
      new CfnOutput(this, `${constructIdOf(operation)}FailureQueueUrl`, {
        value: queue.queueUrl,
        description: `Where ${operation}'s event source describes the batches of stream records it gave up on`,
      });
    }
  }

  /**
   * The dashboard and alarms, in a nested stack of their own: they grow with the routes. They
   * name the functions by their fixed names (`functionNameOf`), so that no family's stack has to
   * hand each function out.
   */
  private watch(settings: OperatorSettings, queues: ServiceQueues, streamWorkers: StreamWorkers): Monitoring {
    const stack = new NestedStack(this, 'Monitoring', { description: 'Software-licensing API: dashboard and alarms' });
    const named = (operation: string) =>
      LambdaFunction.fromFunctionName(stack, `${constructIdOf(operation)}Function`, functionNameOf(this.stackName, operation));
    return new Monitoring(stack, 'Monitoring', {
      name: this.stackName,
      api: this.httpApi,
      families: this.families
        .map((family) => ({
          name: family.name,
          routes: family.routes.flatMap(({ routeKey }) =>
            routeKey.method && routeKey.path ? [{ method: routeKey.method as Method, path: routeKey.path }] : [],
          ),
          functions: [...family.functions.keys()].map(named),
        }))
        .filter((family) => family.routes.length > 0),
      workers: [...this.workerFunctions.keys()].map(named),
      scheduled: [...this.scheduleFunctions.keys()].map((operation) => ({ operation, fn: named(operation) })),
      streamConsumers: [...this.streamWorkerFunctions.keys()].map((operation) => ({ operation, fn: named(operation) })),
      table: this.table,
      queues: this.queues,
      deadLetterQueues: this.deadLetterQueues,
      deadLetterAlarms: [...Object.values(queues.deadLetterAlarms), ...streamWorkers.failureAlarms],
      alarmEmail: settings.alarmEmail,
    });
  }
}
