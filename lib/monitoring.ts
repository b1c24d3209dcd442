import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  type AlarmBase,
  AlarmRule,
  AlarmStatusWidget,
  ComparisonOperator,
  CompositeAlarm,
  Dashboard,
  GraphWidget,
  type IAlarm,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { type ITable, Operation } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { type IFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { QueueName, Route } from '../shared/routes.ts';
import { constructIdOf } from './construct-id.ts';

// Every alarm judges five-minute periods: long enough for a rate to mean something at modest
// traffic, short enough to page within a quarter of an hour.
const period = Duration.minutes(5);

/** Percentage of the API's requests answered 5xx above which it alarms: a paid API should fail almost never. */
export const serverErrorPercent = 1;
/** Requests in a period below which the 5xx rate is not judged: one failure in a handful is no trend (function errors still alarm). */
export const serverErrorMinimumRequests = 20;
/**
 * p99 latency (ms) of a family's slowest route above which it alarms, for three periods in a row:
 * well above a cold start and the validation path's nine table requests, short of what a client gives up on.
 */
export const latencyP99Milliseconds = 2000;
/**
 * Failed invocations of any one function in a period. The pipeline answers every error it can
 * catch with a 4xx or 5xx, so a function error is a crash, a timeout or an exhausted memory.
 */
export const functionErrors = 3;
/** Throttled invocations of any one function in a period: its reserved concurrency or the account's pool is spent. */
export const functionThrottles = 10;
/** Throttled table requests in each of two periods: on demand, the table adapts within minutes, so only persistent throttling alarms. */
export const tableThrottles = 10;
/**
 * Age (seconds) of a queue's oldest message above which its worker is falling behind: more than
 * a message may legitimately wait, i.e. its delay and its retries until it is dead-lettered.
 */
export const queueAgeSeconds: Record<QueueName, number> = {
  // A retry waits up to 15 minutes per hop, and a failed attempt is retried every 2 minutes.
  webhooks: 30 * 60,
  // A purge step runs up to 150 s and is retried every 16 minutes, five times.
  purge: 2 * 60 * 60,
  // A password reset is wanted now; a failed send is retried every 2 minutes, five times.
  mail: 15 * 60,
  // A cascade step runs up to 120 s and is retried every 12 minutes, five times; its second pass waits a little.
  cascades: 90 * 60,
};

/**
 * Age (ms) of the last record a stream consumer was handed when it was handed (Lambda's
 * `IteratorAge`, its maximum in a period) above which the consumer falls behind the table's
 * stream. The outbox relay hands a record on within a second of its commit; five minutes mean
 * its invocations fail and are retried, or do not keep up, and every delivery, purge and mail
 * waits as long.
 */
export const iteratorAgeMilliseconds = 5 * 60 * 1000;

/**
 * Periods without a single run of a scheduled function (the heartbeat sweeper, every minute)
 * after which it alarms: its rule is disabled or its invocations fail before they start.
 */
export const scheduleSilentPeriods = 2;

/** The table operations the service makes (shared/store): the ones whose throttled requests are counted. */
const tableOperations = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
];

/** CloudWatch evaluates at most 10 metrics in one alarm; larger groups are watched in parts. */
const metricsPerAlarm = 10;

interface WatchOptions {
  threshold: number;
  comparisonOperator: ComparisonOperator;
  evaluationPeriods: number;
  /** What the alarm's state means, as a sentence without its full stop. */
  description: string;
}

/** A resource family of the API: its routes and their functions. */
export interface MonitoredFamily {
  /** Short lower-case name, e.g. `licenses`; it names the family's alarms and widgets. */
  name: string;
  routes: readonly Pick<Route, 'method' | 'path'>[];
  functions: readonly IFunction[];
}

export interface MonitoringProps {
  /** Names the dashboard and prefixes every alarm name; the stack's name by default. */
  name?: string;
  /** The API, with its default stage configured by `ApiStage` (route-level metrics on). */
  api: HttpApi;
  families: readonly MonitoredFamily[];
  /** The queue consumers: watched as one more family, `workers`, without routes. */
  workers: readonly IFunction[];
  /** The functions run on a schedule: watched with the workers, and each alarms when it stops running. */
  scheduled?: readonly ScheduledFunction[];
  /** The functions the table's stream feeds: watched with the workers, and each alarms when it falls behind the stream. */
  streamConsumers?: readonly ScheduledFunction[];
  table: ITable;
  queues: Record<QueueName, IQueue>;
  deadLetterQueues: Record<QueueName, IQueue>;
  /** The dead-letter queues' own alarms (lib/queues.ts): they notify the topic too. */
  deadLetterAlarms: readonly AlarmBase[];
  /** Addresses the alarm topic mails. */
  alarmEmail?: readonly string[];
}

/** A function an EventBridge rule runs (shared/routes.ts, `schedules`), or one the table's stream feeds (`streamWorkers`). */
export interface ScheduledFunction {
  operation: string;
  fn: IFunction;
}

/**
 * The service's dashboard and alarms, and the topic every alarm notifies (on entering ALARM and
 * on returning to OK). The topic exists with or without `alarmEmail`, so that other subscribers
 * (chat, paging) can be attached to it and an address can be changed without replacing it.
 * What each alarm means and what to do first: docs/operations.md, "Alarms".
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly dashboard: Dashboard;
  /** The alarms that notify the topic: the parts of a composite alarm notify through it. */
  readonly alarms: IAlarm[] = [];
  private readonly name: string;
  private readonly action: SnsAction;
  private readonly apiDimensions: Record<string, string>;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.name = props.name ?? Stack.of(this).stackName;
    const stageName = props.api.defaultStage?.stageName;
    if (stageName === undefined) throw new Error('The API has no default stage to monitor: create it with createDefaultStage');
    this.apiDimensions = { ApiId: props.api.apiId, Stage: stageName };
    const empty = props.families.find((family) => family.routes.length === 0 || family.functions.length === 0);
    if (empty) throw new Error(`The ${empty.name} family has no routes or no functions to monitor`);

    this.topic = this.createTopic(props.alarmEmail ?? []);
    this.action = new SnsAction(this.topic);
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: this.name, defaultInterval: Duration.hours(3) });

    const apiWidgets = this.watchApi();
    const familyWidgets = props.families.map((family, index) => this.watchLatency(family, index));
    const scheduled = props.scheduled ?? [];
    const streamConsumers = props.streamConsumers ?? [];
    const workers = {
      name: 'workers',
      routes: [],
      functions: [...props.workers, ...scheduled.map(({ fn }) => fn), ...streamConsumers.map(({ fn }) => fn)],
    };
    const functionGroups = workers.functions.length > 0 ? [...props.families, workers] : props.families;
    for (const group of functionGroups) this.watchFunctions(group);
    const tableWidgets = this.watchTable(props.table);
    const queueWidgets = this.watchQueues(props.queues, props.deadLetterQueues);
    const scheduleWidgets = scheduled.length > 0 ? [this.watchSchedules(scheduled)] : [];
    const streamWidgets = streamConsumers.length > 0 ? [this.watchStreamConsumers(streamConsumers)] : [];
    // Their states show in the queue widgets; listing them in the alarm widget too would make
    // the stack that owns them and the one watching them each depend on the other.
    for (const alarm of props.deadLetterAlarms) this.addActions(alarm);

    this.dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 }));
    this.dashboard.addWidgets(...apiWidgets, this.requestsByFamily(props.families));
    this.dashboard.addWidgets(...familyWidgets);
    this.dashboard.addWidgets(...this.functionWidgets(functionGroups));
    this.dashboard.addWidgets(...tableWidgets, ...queueWidgets, ...scheduleWidgets, ...streamWidgets);
  }

  /** The topic, encrypted with a key of its own that CloudWatch may use (it encrypts what it publishes). */
  private createTopic(addresses: readonly string[]): Topic {
    const key = new Key(this, 'AlarmTopicKey', {
      description: 'Encrypts the alarm notifications of the licensing service',
      enableKeyRotation: true,
      // Nothing outlives the notifications in flight, so the key goes with the stack.
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    key.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    const topic = new Topic(this, 'AlarmTopic', { displayName: `${this.name} alarms`, masterKey: key, enforceSSL: true });
    // The topic's policy replaces SNS's default one, so the account's alarms are let in by name.
    const { account, region, partition } = Stack.of(this);
    topic.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
          StringEquals: { 'aws:SourceAccount': account },
        },
      }),
    );
    for (const address of addresses) topic.addSubscription(new EmailSubscription(address));
    return topic;
  }

  private notify(alarm: AlarmBase): void {
    this.addActions(alarm);
    this.alarms.push(alarm);
  }

  private addActions(alarm: AlarmBase): void {
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
  }

  private apiMetric(metricName: string, statistic: string, dimensions: Record<string, string> = {}): Metric {
    return new Metric({
      namespace: 'AWS/ApiGateway',
      metricName,
      statistic,
      period,
      dimensionsMap: { ...this.apiDimensions, ...dimensions },
    });
  }

  /** Route-level metrics carry the route's path and method (they exist with detailed metrics on: lib/stage.ts). */
  private routeMetric(route: Pick<Route, 'method' | 'path'>, metricName: string, statistic: string): Metric {
    return this.apiMetric(metricName, statistic, { Resource: route.path, Method: route.method });
  }

  private watchApi(): GraphWidget[] {
    const requests = this.apiMetric('Count', 'Sum').with({ label: 'Requests' });
    const clientErrors = this.apiMetric('4xx', 'Sum').with({ label: '4xx' });
    const serverErrors = this.apiMetric('5xx', 'Sum').with({ label: '5xx' });
    const serverErrorRate = new MathExpression({
      expression: `IF(requests >= ${serverErrorMinimumRequests}, 100 * FILL(errors, 0) / requests, 0)`,
      usingMetrics: { requests, errors: serverErrors },
      label: '5xx, % of requests',
      period,
    });
    const alarm = new Alarm(this, 'ApiServerErrors', {
      alarmName: `${this.name}-api-5xx-rate`,
      alarmDescription: `More than ${serverErrorPercent}% of the API's requests were answered 5xx. See docs/operations.md, "Alarms".`,
      metric: serverErrorRate,
      threshold: serverErrorPercent,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.notify(alarm);
    return [
      new GraphWidget({ title: 'Requests', left: [requests], width: 6 }),
      new GraphWidget({ title: '4xx and 5xx', left: [clientErrors, serverErrors], width: 6 }),
      new GraphWidget({ title: '5xx rate (%)', left: [serverErrorRate], leftAnnotations: [alarm.toAnnotation()], width: 6 }),
    ];
  }

  private requestsByFamily(families: readonly MonitoredFamily[]): GraphWidget {
    const lines = families.map((family, index) =>
      combine(
        'SUM',
        family.routes.map((route) => this.routeMetric(route, 'Count', 'Sum')),
        `f${index}r`,
        family.name,
      ),
    );
    return new GraphWidget({ title: 'Requests by family', left: lines, width: 6 });
  }

  /** The family's slowest route: its p99 alarms, its p50 and p99 are drawn. */
  private watchLatency(family: MonitoredFamily, index: number): GraphWidget {
    const percentile = (statistic: string) => family.routes.map((route) => this.routeMetric(route, 'Latency', statistic));
    const p99 = percentile('p99');
    const parts = this.watchSlowest(family.name, 'latency', p99, {
      threshold: latencyP99Milliseconds,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      description: `p99 latency of one of the ${family.name} routes stayed above ${latencyP99Milliseconds} ms for 15 minutes`,
    });
    this.notify(this.anyOf(family.name, 'latency', parts, `p99 latency of one of the ${family.name} routes is high`));
    return new GraphWidget({
      title: `${family.name} latency (slowest route, ms)`,
      left: [combine('MAX', percentile('p50'), `f${index}m`, 'p50'), combine('MAX', p99, `f${index}p`, 'p99')],
      leftAnnotations: [{ value: latencyP99Milliseconds, label: 'p99 alarm' }],
      width: 6,
    });
  }

  /** One alarm for the group's functions: any of them failing or throttled. */
  private watchFunctions(group: MonitoredFamily): void {
    const errors = this.watchSlowest(
      group.name,
      'errors',
      group.functions.map((fn) => fn.metricErrors({ period, statistic: 'Sum' })),
      {
        threshold: functionErrors,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        description: `One of the ${group.name} functions failed ${functionErrors} times or more in 5 minutes`,
      },
    );
    const throttles = this.watchSlowest(
      group.name,
      'throttles',
      group.functions.map((fn) => fn.metricThrottles({ period, statistic: 'Sum' })),
      {
        threshold: functionThrottles,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        description: `One of the ${group.name} functions was throttled ${functionThrottles} times or more in 5 minutes`,
      },
    );
    this.notify(this.anyOf(group.name, 'functions', [...errors, ...throttles], `One of the ${group.name} functions fails or is throttled`));
  }

  /**
   * Alarms on the worst of `metrics` (the maximum at each point), in parts of at most 10 metrics.
   * Parts are numbered even when there is one, so that a group that grows past 10 only adds one.
   */
  private watchSlowest(group: string, kind: string, metrics: readonly Metric[], options: WatchOptions): Alarm[] {
    return chunk(metrics, metricsPerAlarm).map((part, index) => {
      const number = index + 1;
      return new Alarm(this, `${constructIdOf(group)}${constructIdOf(kind)}${number}`, {
        alarmName: `${this.name}-${group}-${kind}-${number}`,
        alarmDescription: `${options.description} (part ${number}: watched in parts of ${metricsPerAlarm}).`,
        metric: combine('MAX', part, 'm'),
        threshold: options.threshold,
        comparisonOperator: options.comparisonOperator,
        evaluationPeriods: options.evaluationPeriods,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    });
  }

  /** The composite that notifies for the parts: they have no actions of their own. */
  private anyOf(group: string, kind: string, parts: readonly Alarm[], description: string): CompositeAlarm {
    return new CompositeAlarm(this, `${constructIdOf(group)}${constructIdOf(kind)}`, {
      compositeAlarmName: `${this.name}-${group}-${kind}`,
      alarmDescription: `${description}. See docs/operations.md, "Alarms".`,
      alarmRule: AlarmRule.anyOf(...parts),
    });
  }

  private functionWidgets(groups: readonly MonitoredFamily[]): GraphWidget[] {
    const byGroup = (key: string, metricOf: (fn: IFunction) => Metric) =>
      groups.map((group, index) => combine('SUM', group.functions.map(metricOf), `f${index}${key}`, group.name));
    return [
      new GraphWidget({
        title: 'Function errors by family',
        left: byGroup('e', (fn) => fn.metricErrors({ period, statistic: 'Sum' })),
        width: 8,
      }),
      new GraphWidget({
        title: 'Function throttles by family',
        left: byGroup('t', (fn) => fn.metricThrottles({ period, statistic: 'Sum' })),
        width: 8,
      }),
      new GraphWidget({
        title: 'Concurrent executions (sum of each function’s peak)',
        left: byGroup('c', (fn) => fn.metric('ConcurrentExecutions', { period, statistic: 'Maximum' })),
        right: [LambdaFunction.metricAllConcurrentExecutions({ period, statistic: 'Maximum', label: 'Whole account (region)' })],
        width: 8,
      }),
    ];
  }

  private watchTable(table: ITable): GraphWidget[] {
    const throttled = combine(
      'SUM',
      tableOperations.map((operation) =>
        table.metric('ThrottledRequests', {
          dimensionsMap: { TableName: table.tableName, Operation: operation },
          statistic: 'Sum',
          period,
        }),
      ),
      't',
      'Throttled requests',
    );
    const alarm = new Alarm(this, 'TableThrottles', {
      alarmName: `${this.name}-table-throttles`,
      alarmDescription: `The table throttled ${tableThrottles} requests or more in each of 10 minutes' periods. See docs/operations.md, "Alarms".`,
      metric: throttled,
      threshold: tableThrottles,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 2,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.notify(alarm);
    return [
      new GraphWidget({
        title: 'Table consumed capacity',
        left: [
          table.metricConsumedReadCapacityUnits({ period, label: 'Read units' }),
          table.metricConsumedWriteCapacityUnits({ period, label: 'Write units' }),
        ],
        width: 6,
      }),
      new GraphWidget({ title: 'Table throttled requests', left: [throttled], leftAnnotations: [alarm.toAnnotation()], width: 6 }),
    ];
  }

  /** Each scheduled function alarms when it has not run for `scheduleSilentPeriods` periods; their runs are drawn. */
  private watchSchedules(scheduled: readonly ScheduledFunction[]): GraphWidget {
    const runs = scheduled.map(({ operation, fn }) => {
      const invocations = fn.metricInvocations({ period, statistic: 'Sum' });
      this.notify(
        new Alarm(this, `${constructIdOf(operation)}Silent`, {
          alarmName: `${this.name}-${operation}-silent`,
          alarmDescription:
            `${operation} did not run once in ${(scheduleSilentPeriods * period.toMinutes()).toString()} minutes: its schedule is off or its ` +
            'invocations fail to start. See docs/operations.md, "Alarms".',
          metric: invocations,
          threshold: 1,
          comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
          evaluationPeriods: scheduleSilentPeriods,
          // Lambda reports no invocations at all for a function that is not invoked.
          treatMissingData: TreatMissingData.BREACHING,
        }),
      );
      return invocations.with({ label: operation });
    });
    return new GraphWidget({ title: 'Scheduled runs', left: runs, width: 4 });
  }

  /** Each stream consumer alarms when the records it is handed are older than `iteratorAgeMilliseconds`; their ages are drawn. */
  private watchStreamConsumers(consumers: readonly ScheduledFunction[]): GraphWidget {
    const ages = consumers.map(({ operation, fn }) => {
      const age = fn.metric('IteratorAge', { period, statistic: 'Maximum' });
      this.notify(
        new Alarm(this, `${constructIdOf(operation)}IteratorAge`, {
          alarmName: `${this.name}-${operation}-iterator-age`,
          alarmDescription:
            `${operation} was handed stream records more than ${iteratorAgeMilliseconds / 60_000} minutes old: it falls behind the ` +
            'table\'s stream, and what the records send waits. See docs/operations.md, "Alarms".',
          metric: age,
          threshold: iteratorAgeMilliseconds,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
      return age.with({ label: operation });
    });
    return new GraphWidget({ title: 'Stream iterator age (ms)', left: ages, width: 4 });
  }

  private watchQueues(queues: Record<QueueName, IQueue>, deadLetterQueues: Record<QueueName, IQueue>): GraphWidget[] {
    const names = Object.keys(queues) as QueueName[];
    const ages = names.map((name) => {
      const age = queues[name].metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' });
      this.notify(
        new Alarm(this, `${constructIdOf(name)}QueueAge`, {
          alarmName: `${this.name}-${name}-queue-age`,
          alarmDescription:
            `The oldest message of the ${name} queue waited more than ${queueAgeSeconds[name] / 60} minutes: its worker falls behind. ` +
            'See docs/operations.md, "Alarms".',
          metric: age,
          threshold: queueAgeSeconds[name],
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
      return age.with({ label: name });
    });
    return [
      new GraphWidget({
        title: 'Queue depth',
        left: names.map((name) => queues[name].metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum', label: name })),
        width: 4,
      }),
      new GraphWidget({ title: 'Oldest message age (s)', left: ages, width: 4 }),
      new GraphWidget({
        title: 'Dead-letter queue depth',
        left: names.map((name) =>
          deadLetterQueues[name].metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum', label: name }),
        ),
        width: 4,
      }),
    ];
  }
}

/**
 * One series from many: the metric itself when there is one, else the sum or the maximum at each
 * point. A metric without a point there (a route without requests, an operation never throttled)
 * counts as 0 rather than leaving the point out.
 */
function combine(aggregate: 'SUM' | 'MAX', metrics: readonly Metric[], idPrefix: string, label?: string): IMetric {
  if (metrics.length === 1) return metrics[0].with({ label });
  const ids = metrics.map((_, index) => `${idPrefix}${index}`);
  return new MathExpression({
    expression: `${aggregate}([${ids.map((id) => `FILL(${id}, 0)`).join(', ')}])`,
    usingMetrics: Object.fromEntries(metrics.map((metric, index) => [ids[index], metric])),
    label,
    period,
  });
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, index) => items.slice(index * size, (index + 1) * size));
}
