/**
 * The stage's throttles and access log, reserved concurrency, and the alarms, topic and dashboard,
 * over a small stack of their own: an HTTP API with some of the real route table's families, a
 * function per route, the real queues, a table, two workers, a scheduled function and a stream consumer.
 */
import { readFileSync } from 'node:fs';
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { HttpApi, HttpMethod, type HttpRoute } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { applyConcurrency } from '../../lib/concurrency.ts';
import { constructIdOf } from '../../lib/construct-id.ts';
import {
  functionErrors,
  functionThrottles,
  iteratorAgeMilliseconds,
  latencyP99Milliseconds,
  Monitoring,
  queueAgeSeconds,
  scheduleSilentPeriods,
  serverErrorMinimumRequests,
  serverErrorPercent,
  tableThrottles,
} from '../../lib/monitoring.ts';
import { ServiceQueues } from '../../lib/queues.ts';
import { readOperatorSettings } from '../../lib/settings.ts';
import { ApiStage, accessLogFormat, defaultThrottleRate } from '../../lib/stage.ts';
import type { QueueName, Route } from '../../shared/routes.ts';
import { routes as routeTable } from '../../shared/routes.ts';

const cdkContext = (JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> })
  .context;
// Licenses has more routes than one alarm watches, openapi a single one.
const familyNames = ['licenses', 'tokens', 'passwords', 'openapi'];
const familyOf = (route: Route) => route.operation.split('.')[0];
const monitoredRoutes = routeTable.filter((route) => familyNames.includes(familyOf(route)));
const routesOf = (family: string) => monitoredRoutes.filter((route) => familyOf(route) === family);
const queueNames: QueueName[] = ['webhooks', 'purge', 'mail', 'cascades'];
const hotRoutes = ['licenses.validateKey', 'licenses.validate', 'tokens.generate', 'passwords.request'];

interface Fixture {
  stack: Stack;
  template: Template;
  resources: Record<string, { Type: string; Properties: Record<string, any>; DependsOn?: string[] }>;
  api: HttpApi;
  stage: ApiStage;
  functions: Record<string, LambdaFunction>;
  sweeper: LambdaFunction;
  relay: LambdaFunction;
  routeConstructs: Record<string, HttpRoute>;
  idOf: (construct: { node: { defaultChild?: unknown } }) => string;
}

/** The constructs wired as the service's stack wires them, with settings read from `context` as `cdk synth` reads them. */
function build(context: Record<string, unknown> = {}): Fixture {
  const app = new App({ context: { ...cdkContext, ...context } });
  const settings = readOperatorSettings(app.node);
  const stack = new Stack(app, 'Monitored', { env: { account: '123456789012', region: 'eu-west-1' } });
  const api = new HttpApi(stack, 'HttpApi', { createDefaultStage: true });
  const functionFor = (id: string) =>
    new LambdaFunction(stack, id, {
      runtime: Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: Code.fromInline('exports.handler = async () => ({ statusCode: 204 });'),
    });

  const functions: Record<string, LambdaFunction> = {};
  const routeConstructs: Record<string, HttpRoute> = {};
  for (const route of monitoredRoutes) {
    const fn = functionFor(constructIdOf(route.operation));
    functions[route.operation] = fn;
    [routeConstructs[route.operation]] = api.addRoutes({
      path: route.path,
      methods: [HttpMethod[route.method]],
      integration: new HttpLambdaIntegration(`${constructIdOf(route.operation)}Integration`, fn),
    });
  }
  const workers = [functionFor('PurgeWorker'), functionFor('MailWorker'), functionFor('CascadeWorker')];
  const sweeper = functionFor('SweepSchedule');
  const relay = functionFor('RelayStream');

  const stage = new ApiStage(stack, 'Stage', { api, routes: monitoredRoutes, settings });
  stage.dependOnRoutes(...Object.values(routeConstructs));
  applyConcurrency(functions, settings);

  const queues = new ServiceQueues(stack, 'Queues');
  const table = new TableV2(stack, 'Table', { partitionKey: { name: 'PK', type: AttributeType.STRING } });
  new Monitoring(stack, 'Monitoring', {
    api,
    families: familyNames.map((name) => {
      const members = monitoredRoutes.filter((route) => familyOf(route) === name);
      return { name, routes: members, functions: members.map((route) => functions[route.operation]) };
    }),
    workers,
    scheduled: [{ operation: 'workers.sweepHeartbeats', fn: sweeper }],
    streamConsumers: [{ operation: 'workers.relayOutbox', fn: relay }],
    table,
    queues: queues.queues,
    deadLetterQueues: queues.deadLetterQueues,
    deadLetterAlarms: Object.values(queues.deadLetterAlarms),
    alarmEmail: settings.alarmEmail,
  });

  const template = Template.fromStack(stack);
  return {
    stack,
    template,
    resources: template.toJSON().Resources,
    api,
    stage,
    functions,
    sweeper,
    relay,
    routeConstructs,
    idOf: (construct) => stack.getLogicalId(construct.node.defaultChild as CfnElement),
  };
}

const standard = build();
const configured = build({
  throttleRate: '40',
  alarmEmail: 'ops@vendor.example,oncall@vendor.example',
  reservedConcurrency: 'licenses.validateKey=100,tokens.generate=10',
});

const resourcesOf = ({ resources }: Fixture, type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
const stageOf = (fixture: Fixture) => {
  const [stage] = resourcesOf(fixture, 'AWS::ApiGatewayV2::Stage');
  return { id: stage[0], ...stage[1] };
};
type Found = { id: string } & Record<string, any>;
const alarmNamed = (fixture: Fixture, name: string): Found => {
  const found = resourcesOf(fixture, 'AWS::CloudWatch::Alarm').find(([, alarm]) => alarm.Properties.AlarmName === `Monitored-${name}`);
  if (!found) throw new Error(`no alarm Monitored-${name}`);
  return { id: found[0], ...found[1].Properties };
};
const compositeNamed = (fixture: Fixture, name: string): Found => {
  const found = resourcesOf(fixture, 'AWS::CloudWatch::CompositeAlarm').find(
    ([, alarm]) => alarm.Properties.AlarmName === `Monitored-${name}`,
  );
  if (!found) throw new Error(`no composite alarm Monitored-${name}`);
  return { id: found[0], ...found[1].Properties };
};
/** The logical ids of the alarms a composite alarm's rule names. */
const partsOf = (rule: unknown) => [...JSON.stringify(rule).matchAll(/"Fn::GetAtt":\["(\w+)","Arn"\]/g)].map(([, id]) => id);
const topicId = (fixture: Fixture) => resourcesOf(fixture, 'AWS::SNS::Topic')[0][0];

interface MetricStat {
  Id: string;
  ReturnData?: boolean;
  Expression?: string;
  MetricStat?: { Metric: { MetricName: string; Namespace: string; Dimensions: { Name: string; Value: unknown }[] }; Stat: string };
}
const dimensionsOf = (query: MetricStat) =>
  Object.fromEntries((query.MetricStat?.Metric.Dimensions ?? []).map(({ Name, Value }) => [Name, Value]));

describe('the stage', () => {
  it('throttles every route by default to 100 requests a second with a burst of two seconds’ worth, with route metrics on', () => {
    expect(stageOf(standard).Properties.DefaultRouteSettings).toEqual({
      ThrottlingRateLimit: defaultThrottleRate,
      ThrottlingBurstLimit: 2 * defaultThrottleRate,
      DetailedMetricsEnabled: true,
    });
  });

  it('takes the default throttle from context', () => {
    expect(stageOf(configured).Properties.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 40, ThrottlingBurstLimit: 80 });
    expect(stageOf(build({ throttleRate: 300, throttleBurst: 350 })).Properties.DefaultRouteSettings).toMatchObject({
      ThrottlingRateLimit: 300,
      ThrottlingBurstLimit: 350,
    });
  });

  it('gives the hot routes the route table’s own throttle, route metrics still on, and no other route an override', () => {
    const expected = Object.fromEntries(
      monitoredRoutes.flatMap((route) =>
        route.throttle
          ? [
              [
                `${route.method} ${route.path}`,
                { ThrottlingRateLimit: route.throttle.rate, ThrottlingBurstLimit: route.throttle.burst, DetailedMetricsEnabled: true },
              ],
            ]
          : [],
      ),
    );
    expect(stageOf(standard).Properties.RouteSettings).toEqual(expected);
    expect(monitoredRoutes.filter((route) => route.throttle).map((route) => route.operation)).toEqual(expect.arrayContaining(hotRoutes));
  });

  it('lets validation through faster than the default, and credentials and password mail slower', () => {
    const throttleOf = (operation: string) => routeTable.find((route) => route.operation === operation)?.throttle;
    for (const operation of ['licenses.validateKey', 'licenses.validate']) {
      expect(throttleOf(operation)?.rate).toBeGreaterThan(defaultThrottleRate);
    }
    for (const operation of ['tokens.generate', 'passwords.request']) {
      expect(throttleOf(operation)?.rate).toBeLessThan(defaultThrottleRate);
    }
  });

  it('is deployed after the routes its settings name', () => {
    const stage = stageOf(standard);
    for (const operation of hotRoutes) {
      expect(stage.DependsOn).toContain(standard.idOf(standard.routeConstructs[operation]));
    }
  });

  it('writes one JSON access-log line per request, under the request id the functions log', () => {
    const { AccessLogSettings } = stageOf(standard).Properties;
    const format = JSON.parse(AccessLogSettings.Format);
    expect(format).toEqual(accessLogFormat);
    expect(format.requestId).toBe('$context.requestId');
    expect(Object.values(format)).toEqual(
      expect.arrayContaining([
        '$context.routeKey',
        '$context.status',
        '$context.responseLatency',
        '$context.integrationLatency',
        '$context.integrationErrorMessage',
        '$context.identity.sourceIp',
        '$context.requestTime',
        '$context.httpMethod',
        '$context.path',
      ]),
    );
    const logGroupId = standard.idOf(standard.stage.accessLogs);
    const logGroup = standard.resources[logGroupId];
    expect(AccessLogSettings.DestinationArn).toEqual({ 'Fn::GetAtt': [logGroupId, 'Arn'] });
    expect(logGroup.Properties.RetentionInDays).toBe(30);
    standard.template.hasOutput('AccessLogGroupName', { Value: { Ref: logGroupId } });
  });
});

describe('reserved concurrency', () => {
  const reservedOf = (fixture: Fixture, operation: string) =>
    fixture.resources[fixture.idOf(fixture.functions[operation])].Properties.ReservedConcurrentExecutions;

  it('is none by default', () => {
    for (const [, fn] of resourcesOf(standard, 'AWS::Lambda::Function')) {
      expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
    }
  });

  it('is what context gives each named operation, and only them', () => {
    expect(reservedOf(configured, 'licenses.validateKey')).toBe(100);
    expect(reservedOf(configured, 'tokens.generate')).toBe(10);
    expect(reservedOf(configured, 'licenses.validate')).toBeUndefined();
  });

  it('stops the synth on a name that is no operation', () => {
    expect(() => build({ reservedConcurrency: { 'licenses.validateKye': 5 } })).toThrow(/licenses\.validateKye.*no operation/);
  });
});

describe('the alarm topic', () => {
  it('exists without any address, encrypted by a rotated key of its own, publishable by CloudWatch alarms only over TLS', () => {
    standard.template.resourceCountIs('AWS::SNS::Topic', 1);
    standard.template.resourceCountIs('AWS::SNS::Subscription', 0);
    const [[keyId]] = resourcesOf(standard, 'AWS::KMS::Key');
    standard.template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } });
    standard.template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          }),
        ]),
      },
    });
    standard.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: {
              ArnLike: { 'aws:SourceArn': 'arn:aws:cloudwatch:eu-west-1:123456789012:alarm:*' },
              StringEquals: { 'aws:SourceAccount': '123456789012' },
            },
          }),
        ]),
      },
    });
  });

  it('mails every address alarmEmail names', () => {
    const subscriptions = resourcesOf(configured, 'AWS::SNS::Subscription').map(([, subscription]) => subscription.Properties);
    expect(subscriptions).toEqual(
      ['ops@vendor.example', 'oncall@vendor.example'].map((address) =>
        expect.objectContaining({ Protocol: 'email', Endpoint: address, TopicArn: { Ref: topicId(configured) } }),
      ),
    );
  });

  it('is notified by every alarm that stands for itself, on ALARM and back on OK; the parts of a composite notify through it', () => {
    const action = [{ Ref: topicId(standard) }];
    const composites = resourcesOf(standard, 'AWS::CloudWatch::CompositeAlarm');
    const parts = new Set(composites.flatMap(([, composite]) => partsOf(composite.Properties.AlarmRule)));
    const alarms = [...resourcesOf(standard, 'AWS::CloudWatch::Alarm'), ...composites];
    for (const [id, alarm] of alarms) {
      const expected = parts.has(id) ? undefined : action;
      expect({ id, actions: alarm.Properties.AlarmActions, ok: alarm.Properties.OKActions }).toEqual({
        id,
        actions: expected,
        ok: expected,
      });
    }
    expect(parts.size).toBeGreaterThan(0);
  });
});

describe('the alarms', () => {
  it('API 5xx rate: 5xx over requests, judged from 20 requests a period, above 1 % in 2 of 3 periods', () => {
    const alarm = alarmNamed(standard, 'api-5xx-rate');
    expect(alarm).toMatchObject({ Threshold: serverErrorPercent, ComparisonOperator: 'GreaterThanThreshold' });
    expect(alarm).toMatchObject({ EvaluationPeriods: 3, DatapointsToAlarm: 2, TreatMissingData: 'notBreaching' });
    const queries: MetricStat[] = alarm.Metrics;
    const expression = queries.find((query) => query.ReturnData !== false && query.Expression);
    expect(expression?.Expression).toBe(`IF(requests >= ${serverErrorMinimumRequests}, 100 * FILL(errors, 0) / requests, 0)`);
    const byId = Object.fromEntries(queries.map((query) => [query.Id, query]));
    expect(byId.requests.MetricStat).toMatchObject({ Metric: { Namespace: 'AWS/ApiGateway', MetricName: 'Count' }, Stat: 'Sum' });
    expect(byId.errors.MetricStat).toMatchObject({ Metric: { Namespace: 'AWS/ApiGateway', MetricName: '5xx' }, Stat: 'Sum' });
    expect(dimensionsOf(byId.errors)).toEqual({ ApiId: { Ref: standard.idOf(standard.api) }, Stage: '$default' });
  });

  it('p99 latency per family: the slowest route above 2 s for 3 periods, in parts of at most 10 routes under one composite', () => {
    const routes = routesOf('licenses');
    expect(routes.length).toBeGreaterThan(10);
    const parts = Array.from({ length: Math.ceil(routes.length / 10) }, (_, i) => alarmNamed(standard, `licenses-latency-${i + 1}`));
    const watched = parts.flatMap((part) => {
      expect(part).toMatchObject({ Threshold: latencyP99Milliseconds, EvaluationPeriods: 3, ComparisonOperator: 'GreaterThanThreshold' });
      // A last part of one route watches that route's metric alone.
      if (!part.Metrics) {
        expect(part).toMatchObject({ MetricName: 'Latency', ExtendedStatistic: 'p99' });
        const { Method, Resource } = Object.fromEntries(
          part.Dimensions.map(({ Name, Value }: { Name: string; Value: string }) => [Name, Value]),
        );
        return [`${Method} ${Resource}`];
      }
      const queries: MetricStat[] = part.Metrics;
      const metrics = queries.filter((query) => query.MetricStat);
      expect(metrics.length).toBeLessThanOrEqual(10);
      expect(queries.find((query) => query.Expression)?.Expression).toBe(
        `MAX([${metrics.map((query) => `FILL(${query.Id}, 0)`).join(', ')}])`,
      );
      return metrics.map((query) => {
        expect(query.MetricStat).toMatchObject({ Metric: { MetricName: 'Latency' }, Stat: 'p99' });
        const { Method, Resource, Stage } = dimensionsOf(query);
        expect(Stage).toBe('$default');
        return `${Method} ${Resource}`;
      });
    });
    expect(watched.sort()).toEqual(routes.map((route) => `${route.method} ${route.path}`).sort());

    const composite = compositeNamed(standard, 'licenses-latency');
    expect(partsOf(composite.AlarmRule)).toEqual(parts.map((part) => part.id));
  });

  it('p99 latency of a family of one route watches that route’s metric alone', () => {
    const [route] = routesOf('openapi');
    expect(alarmNamed(standard, 'openapi-latency-1')).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: 'Latency',
      ExtendedStatistic: 'p99',
      Dimensions: expect.arrayContaining([
        { Name: 'Resource', Value: route.path },
        { Name: 'Method', Value: route.method },
      ]),
    });
  });

  it('functions per family: any function with 3 errors or 10 throttles in a period, one composite per family and for the workers', () => {
    for (const family of [...familyNames, 'workers']) {
      // The two queue workers, the scheduled function and the stream consumer.
      const functionCount = family === 'workers' ? 4 : routesOf(family).length;
      const partCount = Math.ceil(functionCount / 10);
      const composite = compositeNamed(standard, `${family}-functions`);
      for (let number = 1; number <= partCount; number++) {
        const errors = alarmNamed(standard, `${family}-errors-${number}`);
        const throttles = alarmNamed(standard, `${family}-throttles-${number}`);
        expect(errors).toMatchObject({
          Threshold: functionErrors,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          EvaluationPeriods: 1,
        });
        expect(throttles).toMatchObject({ Threshold: functionThrottles, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
        expect(JSON.stringify(errors)).toContain('"MetricName":"Errors"');
        expect(JSON.stringify(throttles)).toContain('"MetricName":"Throttles"');
        expect(partsOf(composite.AlarmRule)).toEqual(expect.arrayContaining([errors.id, throttles.id]));
      }
    }
  });

  it('watches each function of a family in its errors alarm', () => {
    const [, fn] = Object.entries(standard.functions).find(([operation]) => operation === 'tokens.generate') ?? [];
    expect(JSON.stringify(alarmNamed(standard, 'tokens-errors-1').Metrics)).toContain(standard.idOf(fn as LambdaFunction));
  });

  it('table throttles: throttled requests of every operation the service makes, 10 or more in each of 2 periods', () => {
    const alarm = alarmNamed(standard, 'table-throttles');
    expect(alarm).toMatchObject({ Threshold: tableThrottles, EvaluationPeriods: 2, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    const queries: MetricStat[] = alarm.Metrics;
    const operations = queries.filter((query) => query.MetricStat).map((query) => dimensionsOf(query).Operation);
    expect(operations.sort()).toEqual(
      ['BatchGetItem', 'BatchWriteItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'TransactWriteItems', 'UpdateItem'].sort(),
    );
    for (const query of queries.filter((candidate) => candidate.MetricStat)) {
      expect(query.MetricStat?.Metric.MetricName).toBe('ThrottledRequests');
    }
  });

  it.each(queueNames)('queue age: the %s queue’s oldest message older than its threshold', (name) => {
    const alarm = alarmNamed(standard, `${name}-queue-age`);
    expect(alarm).toMatchObject({
      MetricName: 'ApproximateAgeOfOldestMessage',
      Namespace: 'AWS/SQS',
      Statistic: 'Maximum',
      Threshold: queueAgeSeconds[name],
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('a scheduled function: not run once in two periods, counting periods without any invocation', () => {
    const alarm = alarmNamed(standard, 'workers.sweepHeartbeats-silent');
    expect(alarm).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Invocations',
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      EvaluationPeriods: scheduleSilentPeriods,
      TreatMissingData: 'breaching',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: standard.idOf(standard.sweeper) } }],
      AlarmActions: [{ Ref: topicId(standard) }],
    });
    expect(JSON.stringify(alarmNamed(standard, 'workers-errors-1').Metrics)).toContain(standard.idOf(standard.sweeper));
  });

  it('a stream consumer: handed records older than its threshold, and watched with the workers', () => {
    const alarm = alarmNamed(standard, 'workers.relayOutbox-iterator-age');
    expect(alarm).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Statistic: 'Maximum',
      Period: 300,
      Threshold: iteratorAgeMilliseconds,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: standard.idOf(standard.relay) } }],
      AlarmActions: [{ Ref: topicId(standard) }],
    });
    expect(JSON.stringify(alarmNamed(standard, 'workers-errors-1').Metrics)).toContain(standard.idOf(standard.relay));
  });

  it('dead-letter queues: the queues’ own alarms notify the topic', () => {
    const deadLetterAlarms = resourcesOf(standard, 'AWS::CloudWatch::Alarm').filter(([id]) => id.includes('DeadLetterAlarm'));
    expect(deadLetterAlarms).toHaveLength(queueNames.length);
    for (const [, alarm] of deadLetterAlarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId(standard) }]);
  });
});

describe('the dashboard', () => {
  type Widget = { type: string; properties: { title: string; metrics?: unknown[][]; alarms?: unknown[] } };
  /** The body with every reference written as `ref:<id>`, so that it parses as JSON. */
  const body = (() => {
    const [[, dashboard]] = resourcesOf(standard, 'AWS::CloudWatch::Dashboard');
    const parts: unknown[] = dashboard.Properties.DashboardBody['Fn::Join'][1];
    const text = parts
      .map((part) => {
        if (typeof part === 'string') return part;
        const reference = part as { Ref?: string; 'Fn::GetAtt'?: string[] };
        return `ref:${reference.Ref ?? reference['Fn::GetAtt']?.join('.')}`;
      })
      .join('');
    return JSON.parse(text) as { widgets: Widget[] };
  })();
  const widget = (title: string) => {
    const found = body.widgets.find((candidate) => candidate.properties.title === title);
    if (!found) throw new Error(`no widget ${title}: ${body.widgets.map((candidate) => candidate.properties.title).join(', ')}`);
    return found.properties;
  };
  const metricNames = (title: string) =>
    (widget(title).metrics ?? []).flatMap((line) => (typeof line[0] === 'string' && typeof line[1] === 'string' ? [line[1]] : []));
  const expressions = (title: string) =>
    (widget(title).metrics ?? []).flatMap((line) => line.flatMap((part) => (part as { expression?: string }).expression ?? []));

  it('is named after the stack', () => {
    standard.template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'Monitored' });
  });

  it('shows the state of every alarm it raises that notifies (the dead-letter queues show in their widgets)', () => {
    const notifying = [
      ...resourcesOf(standard, 'AWS::CloudWatch::Alarm'),
      ...resourcesOf(standard, 'AWS::CloudWatch::CompositeAlarm'),
    ].filter(([id, alarm]) => alarm.Properties.AlarmActions && !id.includes('DeadLetterAlarm'));
    expect(widget('Alarms').alarms).toHaveLength(notifying.length);
  });

  it('shows the API’s requests, 4xx and 5xx, and the 5xx rate', () => {
    expect(metricNames('Requests')).toEqual(['Count']);
    expect(metricNames('4xx and 5xx')).toEqual(['4xx', '5xx']);
    expect(expressions('5xx rate (%)')).toEqual([expect.stringContaining('100 * FILL(errors, 0) / requests')]);
    expect(expressions('Requests by family')).toHaveLength(familyNames.filter((name) => routesOf(name).length > 1).length);
  });

  it.each(familyNames)('shows the p50 and p99 latency of the %s family’s routes', (family) => {
    const { metrics = [] } = widget(`${family} latency (slowest route, ms)`);
    const statistics = metrics.flatMap((line) => line.flatMap((part) => (part as { stat?: string }).stat ?? []));
    const routeCount = routesOf(family).length;
    expect(statistics.filter((stat) => stat === 'p50')).toHaveLength(routeCount);
    expect(statistics.filter((stat) => stat === 'p99')).toHaveLength(routeCount);
  });

  it('shows function errors, throttles and concurrency by family and for the workers', () => {
    expect(metricNames('Function errors by family')).toContain('Errors');
    expect(metricNames('Function throttles by family')).toContain('Throttles');
    expect(metricNames('Concurrent executions (sum of each function’s peak)')).toContain('ConcurrentExecutions');
    expect(
      widget('Function errors by family')
        .metrics?.flat()
        .filter((part) => (part as { label?: string }).label),
    ).toEqual([...familyNames, 'workers'].map((label) => expect.objectContaining({ label })));
  });

  it('shows the scheduled functions’ runs', () => {
    expect(metricNames('Scheduled runs')).toEqual(['Invocations']);
  });

  it('shows the stream consumers’ iterator age', () => {
    expect(metricNames('Stream iterator age (ms)')).toEqual(['IteratorAge']);
  });

  it('shows the table’s consumed capacity and throttled requests, and queue depth, age and dead letters', () => {
    expect(metricNames('Table consumed capacity')).toEqual(['ConsumedReadCapacityUnits', 'ConsumedWriteCapacityUnits']);
    expect(new Set(metricNames('Table throttled requests'))).toEqual(new Set(['ThrottledRequests']));
    expect(metricNames('Queue depth')).toEqual(queueNames.map(() => 'ApproximateNumberOfMessagesVisible'));
    expect(metricNames('Oldest message age (s)')).toEqual(queueNames.map(() => 'ApproximateAgeOfOldestMessage'));
    expect(metricNames('Dead-letter queue depth')).toEqual(queueNames.map(() => 'ApproximateNumberOfMessagesVisible'));
  });
});
