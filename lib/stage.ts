import { CfnOutput } from 'aws-cdk-lib';
import { CfnStage, type HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct, type IDependable } from 'constructs';
import type { Throttle } from '../shared/access.ts';
import type { Route } from '../shared/routes.ts';
import type { OperatorSettings } from './settings.ts';

/**
 * Requests a second each route may take unless the route table or `throttleRate` says otherwise.
 * One flooded route then holds about 10 function instances (at ~100 ms a request) and makes a
 * few hundred table requests a second, while the account's own limit (10,000 a second, shared by
 * every API of the account and region, and enforced on all of them at once) stays out of reach.
 */
export const defaultThrottleRate = 100;

/** The stage's default throttle: the burst is two seconds' worth of the rate unless given. */
export function stageThrottle(settings: Pick<OperatorSettings, 'throttleRate' | 'throttleBurst'>): Throttle {
  const rate = settings.throttleRate ?? defaultThrottleRate;
  return { rate, burst: settings.throttleBurst ?? 2 * rate };
}

/**
 * One JSON object per request. `requestId` is the id the functions log each request under
 * (shared/http/pipeline.ts) and answer in `X-Request-Id`; `integrationRequestId` is the function
 * invocation's own id, the one on Lambda's START, END and REPORT lines.
 */
export const accessLogFormat = {
  requestId: '$context.requestId',
  integrationRequestId: '$context.integration.requestId',
  time: '$context.requestTime',
  method: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationStatus: '$context.integrationStatus',
  integrationLatency: '$context.integrationLatency',
  integrationErrorMessage: '$context.integrationErrorMessage',
  /** Why API Gateway itself answered, e.g. `Too Many Requests` for a throttled request. */
  error: '$context.error.message',
  sourceIp: '$context.identity.sourceIp',
} as const;

export interface ApiStageProps {
  /** An API with its default stage (`createDefaultStage`), which this construct configures. */
  api: HttpApi;
  /** The API's routes: those with a `throttle` of their own get it in place of the default. */
  routes: readonly Pick<Route, 'method' | 'path' | 'throttle'>[];
  settings: Pick<OperatorSettings, 'throttleRate' | 'throttleBurst'>;
}

/**
 * The HTTP API's default stage made fit to run: a throttle on every route (the stage's default
 * and the route table's overrides), route-level metrics (which the per-family latency alarms
 * read: lib/monitoring.ts), and an access log.
 */
export class ApiStage extends Construct {
  readonly accessLogs: LogGroup;
  private readonly stage: CfnStage;

  constructor(scope: Construct, id: string, props: ApiStageProps) {
    super(scope, id);
    const stage = props.api.defaultStage?.node.defaultChild;
    if (!(stage instanceof CfnStage)) throw new Error('The API has no default stage to configure: create it with createDefaultStage');
    this.stage = stage;

    const { rate, burst } = stageThrottle(props.settings);
    // Route-level metrics cost as custom metrics do, per route that receives requests
    // (docs/operations.md, "The dashboard"); the latency alarms cannot do without them.
    stage.defaultRouteSettings = { throttlingRateLimit: rate, throttlingBurstLimit: burst, detailedMetricsEnabled: true };
    // A route's settings replace the default ones as a whole, so the metrics are asked for again.
    // (A JSON property: CloudFormation's own capitalised names.)
    stage.routeSettings = Object.fromEntries(
      props.routes.flatMap(({ method, path, throttle }) =>
        throttle
          ? [
              [
                `${method} ${path}`,
                { ThrottlingRateLimit: throttle.rate, ThrottlingBurstLimit: throttle.burst, DetailedMetricsEnabled: true },
              ],
            ]
          : [],
      ),
    );

    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH });
    stage.accessLogSettings = { destinationArn: this.accessLogs.logGroupArn, format: JSON.stringify(accessLogFormat) };
    new CfnOutput(this, 'AccessLogGroupName', {
      value: this.accessLogs.logGroupName,
      description: 'The API access log: one JSON line per request',
    }).overrideLogicalId('AccessLogGroupName');
  }

  /**
   * Route settings name routes by key, and API Gateway refuses settings for a route that does
   * not exist yet: the stage is deployed after the constructs that hold the API's routes (the
   * routes themselves, or the nested stacks they are in).
   */
  dependOnRoutes(...holders: IDependable[]): void {
    this.stage.node.addDependency(...holders);
  }
}
