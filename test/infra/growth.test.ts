/**
 * Room to grow: the route table as it is plus 150 more routes, most of them where the licensing
 * work ahead adds them (license and machine actions, entitlements, processes, check-outs), still
 * fits every template well inside CloudFormation's limits, and every route still gets its own
 * function whose role grants exactly the access it declares.
 */
import { Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../lib/families.ts';
import { RouteFamily } from '../../lib/route-family.ts';
import type { ServiceFunction } from '../../lib/service-function.ts';
import type { Access, Method } from '../../shared/access.ts';
import { fallback, type QueueName, type Route, routes, schedules, streamWorkers } from '../../shared/routes.ts';
import { tableDefinition } from '../../shared/store/table.ts';
import {
  baseSettings,
  env,
  functionFor,
  inParentTerms,
  logicalIdOf,
  propertiesOf,
  type Statement,
  type Synthesis,
  stacksOf,
  statementsOf,
  synthesize,
} from './synthesize.ts';

/** CloudFormation's quotas per template. */
const limits = { resources: 500, outputs: 200, parameters: 200 };
/** A template may use this share of the resource quota: what is left is room for what the stack gains besides routes. */
const resourceBudget = 0.6 * limits.resources;

/** Routes added per family: today's families, and new ones. */
const growth: Record<string, number> = {
  licenses: 40,
  machines: 25,
  entitlements: 20,
  processes: 15,
  checkouts: 10,
  users: 10,
  products: 10,
  policies: 10,
  webhookEndpoints: 5,
  components: 5,
};
/** Cycled through, so the new routes need roles of every kind. */
const accessSets: readonly (readonly Access[])[] = [
  ['table:read'],
  ['table:read', 'table:write'],
  ['table:read', 'table:write', 'events:emit'],
  ['table:read', 'table:write', 'queue:mail'],
  ['table:read', 'queue:purge'],
  ['table:read', 'mail:send'],
  ['table:read', 'key:seal'],
  ['table:read', 'key:unseal'],
  ['table:read', 'account:sign'],
  [],
];
const methods: readonly Method[] = ['GET', 'POST', 'PATCH', 'DELETE'];

const generated: Route[] = Object.entries(growth).flatMap(([resource, count]) =>
  Array.from({ length: count }, (_, index) => ({
    operation: `${resource}.generated${index}`,
    method: methods[index % methods.length],
    path: `/v1/accounts/{account}/generated/${resource}/${index}`,
    handler: { module: `functions/generated/${resource}/${index}.ts` },
    access: accessSets[index % accessSets.length],
  })),
);
const allRoutes = [...routes, ...generated];

const grown = synthesize({ routes: allRoutes });

describe('the route table plus 150 routes', () => {
  it('adds 150 routes, some in families of their own', () => {
    expect(generated).toHaveLength(150);
    expect(grown.stack.families.map((family) => family.name)).toEqual(
      expect.arrayContaining(['licenses', 'machines', 'entitlements', 'processes', 'checkouts']),
    );
  });

  it.each(stacksOf(grown).map((stack) => [stack.node.path, stack]))(
    `%s stays within ${resourceBudget} resources and CloudFormation's outputs and parameters`,
    (_, stack) => {
      const template = grown.templateOf(stack).toJSON();
      expect(Object.keys(template.Resources).length).toBeLessThanOrEqual(resourceBudget);
      expect(Object.keys(template.Outputs ?? {}).length).toBeLessThanOrEqual(limits.outputs);
      expect(Object.keys(template.Parameters ?? {}).length).toBeLessThanOrEqual(limits.parameters);
    },
  );

  it('keeps the parent’s outputs and parameters as the real table has them: they do not grow with the routes', () => {
    const names = (synthesis: Synthesis, section: 'Outputs' | 'Parameters') => Object.keys(synthesis.template.toJSON()[section] ?? {});
    const real = synthesize();
    expect(names(grown, 'Outputs')).toEqual(names(real, 'Outputs'));
    expect(names(grown, 'Parameters')).toEqual(names(real, 'Parameters'));
  });
});

describe('each route of the grown table', () => {
  const entries = [
    ...allRoutes.map((route) => ({ ...route, routeKey: `${route.method} ${route.path}` })),
    { ...fallback, routeKey: '$default' },
  ];

  it('has a function of its own, in the stack of its family', () => {
    const functions = entries.map((entry) => functionFor(grown.stack, entry.operation));
    expect(new Set(functions).size).toBe(entries.length);
    for (const [index, fn] of functions.entries()) {
      const holder = Stack.of(fn);
      const { operation } = entries[index];
      expect(holder instanceof RouteFamily && holder.name, operation).toBe(familyOf(operation));
    }
  });

  it.each(entries.map((entry) => [entry.routeKey, entry.operation]))('%s is routed to the %s function', (routeKey, operation) => {
    const fn = functionFor(grown.stack, operation);
    const template = grown.templateOf(fn);
    const [route] = Object.values(template.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: routeKey } }));
    expect(inParentTerms(grown, fn, route?.Properties.ApiId)).toEqual({ Ref: logicalIdOf(grown.stack.httpApi) });
    const integrationId = route?.Properties.Target['Fn::Join'][1][1].Ref as string;
    expect(template.toJSON().Resources[integrationId].Properties.IntegrationUri).toEqual({ 'Fn::GetAtt': [logicalIdOf(fn), 'Arn'] });
  });

  it.each(entries.map((entry) => [entry.operation, entry.access]))('%s runs with a role granting exactly %j', expectExactGrants);
});

describe('each schedule', () => {
  // Its role is its own (lib/schedules.ts), granted as a route's is.
  it.each(schedules.map((schedule) => [schedule.operation, schedule.access]))('%s runs with a role granting exactly %j', expectExactGrants);
});

describe('each stream worker', () => {
  // Its role is its own (lib/stream-workers.ts); its event source adds the stream's reads and the sends to its on-failure queue.
  it.each(streamWorkers.map((worker) => [worker.operation, worker.access]))(
    '%s runs with a role granting exactly %j, the stream and its on-failure queue',
    (operation, access) => expectExactGrants(operation, access, ['stream:read', 'failures:send']),
  );
});

/**
 * The function of `operation` runs with a role granting `access` (and `besides`: what its event
 * source grants), its log and its traces, and nothing else.
 */
function expectExactGrants(operation: string, access: readonly Access[], besides: readonly string[] = []): void {
  const fn = functionFor(grown.stack, operation);
  const { role } = fn;
  expect(role, operation).toBeDefined();
  if (!role) return;
  expect(propertiesOf(grown, role)).toMatchObject({
    AssumeRolePolicyDocument: {
      Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } }],
    },
  });
  // No managed policy: the role writes to its own log group only (its family's, for a route).
  expect(propertiesOf(grown, role).ManagedPolicyArns).toBeUndefined();
  // Besides its access and its log, every function may write its traces (tracing is on by default: tracing.test.ts).
  // Emitting events is writing them (table:write): it grants nothing of its own.
  const granting = access.filter((grant) => grant !== 'events:emit');
  const expected = new Set<string>([
    ...(granting.includes('table:write') ? [...granting, 'table:read'] : granting),
    ...besides,
    'logs',
    'traces:write',
  ]);
  expect(new Set(statementsOf(grown, fn).flatMap((statement) => accessGrantedBy(grown, statement, fn)))).toEqual(expected);
}

/**
 * The access each action of a statement grants, named as the route table names it; an action
 * or a resource no access accounts for is named as it is, so that it fails the comparison.
 */
function accessGrantedBy({ stack }: Synthesis, statement: Statement, fn: ServiceFunction): string[] {
  const ownLogs = JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(fn.logGroup), 'Arn'] });
  const tableArn = { 'Fn::GetAtt': [logicalIdOf(stack.table), 'Arn'] };
  const targets = new Map<string, string>([
    [JSON.stringify(tableArn), 'table'],
    ...tableDefinition.indexes.map((index) => [JSON.stringify({ 'Fn::Join': ['', [tableArn, `/index/${index.name}`]] }), 'table'] as const),
    [JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(stack.sealingKey), 'Arn'] }), 'key'],
    [JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(stack.signingKeysKey), 'Arn'] }), 'signing keys'],
    ...(Object.keys(stack.queues) as QueueName[]).map(
      (name) => [JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(stack.queues[name]), 'Arn'] }), `queue:${name}`] as const,
    ),
    [JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(stack.table), 'StreamArn'] }), 'stream'],
    ...[...stack.streamFailureQueues.values()].map(
      (queue) => [JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(queue), 'Arn'] }), 'failures'] as const,
    ),
    ...[baseSettings.mailFrom, baseSettings.mailFrom.split('@')[1]].map(
      (identity) => [JSON.stringify(`arn:aws:ses:${env.region}:${env.account}:identity/${identity}`), 'mail'] as const,
    ),
  ]);
  const tableWrites = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
  const queueSends = ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'];
  const traceWrites = ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'];
  const streamReads = ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'];

  if (statement.Effect !== 'Allow') return [`${statement.Effect} ${statement.Action}`];
  // Giving an account its signing key: one attribute of account items, nothing else (lib/access.ts).
  if (isSigningKeyProvision(statement, tableArn)) return ['account:sign'];
  return [statement.Resource].flat().flatMap((resource) => {
    const target = targets.get(JSON.stringify(resource));
    return statement.Action.map((action) => {
      if (resource === '*' && traceWrites.includes(action)) return 'traces:write';
      if (JSON.stringify(resource) === ownLogs && (action === 'logs:CreateLogStream' || action === 'logs:PutLogEvents')) return 'logs';
      if (target === 'table' && action.startsWith('dynamodb:')) return tableWrites.includes(action) ? 'table:write' : 'table:read';
      if (target?.startsWith('queue:') && queueSends.includes(action)) return target;
      if (target === 'failures' && queueSends.includes(action)) return 'failures:send';
      if (target === 'stream' && streamReads.includes(action)) return 'stream:read';
      if (target === 'mail' && (action === 'ses:SendEmail' || action === 'ses:SendRawEmail')) return 'mail:send';
      if (target === 'key' && action === 'kms:GenerateDataKey') return 'key:seal';
      if (target === 'key' && action === 'kms:Decrypt') return 'key:unseal';
      if (target === 'signing keys' && (action === 'kms:Decrypt' || action === 'kms:GenerateDataKey')) return 'account:sign';
      return `${action} on ${JSON.stringify(resource)}`;
    });
  });
}

function isSigningKeyProvision(statement: Statement, tableArn: unknown): boolean {
  return (
    JSON.stringify(statement.Action) === JSON.stringify(['dynamodb:UpdateItem']) &&
    JSON.stringify(statement.Resource) === JSON.stringify(tableArn) &&
    JSON.stringify(statement.Condition) ===
      JSON.stringify({
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ACCOUNT#*'] },
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['PK', 'SK', 'signingKey'] },
        StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
      })
  );
}
