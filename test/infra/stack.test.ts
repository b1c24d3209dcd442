import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { constructIdOf } from '../../lib/construct-id.ts';
import { familyOf } from '../../lib/families.ts';
import type { ServiceFunction } from '../../lib/service-function.ts';
import type { Access } from '../../shared/access.ts';
import { outboxAccess, outboxFilters } from '../../shared/outbox/entries.ts';
import { queues as queueDefinitions, workerTimeoutSeconds } from '../../shared/queues.ts';
import { fallback, type QueueName, type Route, routes, schedules, streamWorkers, type Worker, workers } from '../../shared/routes.ts';
import { tableDefinition } from '../../shared/store/table.ts';
import {
  actionsOf,
  baseSettings,
  env,
  environmentOf,
  functionFor,
  inParentTerms,
  logicalIdOf,
  propertiesOf,
  resourcesOf,
  type Synthesis,
  stacksOf,
  statementsOf,
  synthesize,
} from './synthesize.ts';

// Made-up entries beside the real route table, to exercise grants and a queue consumer on
// their own (names no real route will take).
const deliverWebhooks: Worker = {
  operation: 'fabricated.consumer',
  queue: 'webhooks',
  handler: { module: 'functions/fabricated/consumer.ts' },
  access: ['table:read', 'table:write'],
  batchSize: 7,
  maxConcurrency: 3,
};
const resetPassword: Route = {
  operation: 'fabricated.mail',
  method: 'POST',
  path: '/v1/accounts/{account}/fabricated/mail',
  handler: { module: 'functions/fabricated/mail.ts' },
  access: ['table:read', 'table:write', 'mail:send'],
};
const testWebhook: Route = {
  operation: 'fabricated.queue',
  method: 'POST',
  path: '/v1/accounts/{account}/fabricated/queue',
  handler: { module: 'functions/fabricated/queue.ts' },
  access: ['table:read', 'queue:webhooks'],
};
const sealSecrets: Route = {
  operation: 'fabricated.seal',
  method: 'POST',
  path: '/v1/accounts/{account}/fabricated/seal',
  handler: { module: 'functions/fabricated/seal.ts' },
  access: ['table:read', 'key:seal', 'key:unseal'],
};

// Synthesised once each: synthesis is the slow part.
const live = synthesize({ validate: true });
// Without the stream workers, so that its one event source is the fabricated consumer's.
const extended = synthesize({
  routes: [...routes, resetPassword, testWebhook, sealSecrets],
  workers: [deliverWebhooks],
  streamWorkers: [],
});

const queueNames = Object.keys(queueDefinitions) as QueueName[];
const tableId = logicalIdOf(live.stack.table);
const sealingKeyId = logicalIdOf(live.stack.sealingKey);
const apiId = logicalIdOf(live.stack.httpApi);
const queueIdOf = ({ stack }: Synthesis, name: QueueName, kind: 'Queue' | 'DeadLetterQueue') =>
  logicalIdOf(kind === 'Queue' ? stack.queues[name] : stack.deadLetterQueues[name]);

describe('the table', () => {
  it('streams every change with its old and new images, for the outbox relay', () => {
    live.template.hasResourceProperties('AWS::DynamoDB::GlobalTable', { StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } });
  });

  it('is one on-demand table keyed by string PK and SK, with TTL', () => {
    live.template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    live.template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: [
        { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: tableDefinition.ttlAttribute, Enabled: true },
    });
  });

  it('survives mistakes: point-in-time recovery, deletion protection, retained on stack deletion', () => {
    live.template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        Replicas: [
          Match.objectLike({
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      },
    });
  });

  it('has exactly the indexes of the table definition, each with its keys and projection', () => {
    const table = live.template.toJSON().Resources[tableId].Properties;
    expect(table.GlobalSecondaryIndexes).toEqual(
      tableDefinition.indexes.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: index.projection, ...(index.include && { NonKeyAttributes: [...index.include] }) },
      })),
    );
    expect(new Set(table.AttributeDefinitions.map((attribute: { AttributeType: string }) => attribute.AttributeType))).toEqual(
      new Set(['S']),
    );
  });
});

describe('the sealing key', () => {
  it('is one of two KMS keys (the other seals the signing keys), each rotated yearly, retained on stack deletion as the table is', () => {
    live.template.resourceCountIs('AWS::KMS::Key', 2);
    live.template.hasResource('AWS::KMS::Key', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ EnableKeyRotation: true }),
    });
  });
});

describe('the queues', () => {
  it('are one queue and one dead-letter queue per definition, and an on-failure queue per stream worker', () => {
    live.template.resourceCountIs('AWS::SQS::Queue', 2 * queueNames.length + streamWorkers.length);
  });

  it.each(queueNames)('%s redrives to its own dead-letter queue, as defined', (name) => {
    const definition = queueDefinitions[name];
    const resources = live.template.toJSON().Resources;
    const queue = resources[queueIdOf(live, name, 'Queue')].Properties;
    const deadLetterQueue = resources[queueIdOf(live, name, 'DeadLetterQueue')].Properties;

    expect(queue).toEqual({
      VisibilityTimeout: definition.visibilityTimeoutSeconds,
      SqsManagedSseEnabled: true,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [queueIdOf(live, name, 'DeadLetterQueue'), 'Arn'] },
        maxReceiveCount: definition.maxReceiveCount,
      },
    });
    expect(deadLetterQueue).toEqual({
      MessageRetentionPeriod: definition.deadLetterRetentionSeconds,
      SqsManagedSseEnabled: true,
    });
  });

  it.each(queueNames)('%s and its dead-letter queue refuse unencrypted connections', (name) => {
    for (const kind of ['Queue', 'DeadLetterQueue'] as const) {
      live.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: queueIdOf(live, name, kind) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sqs:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
  });

  it.each(queueNames)('%s raises an alarm as soon as its dead-letter queue holds a message', (name) => {
    live.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueIdOf(live, name, 'DeadLetterQueue'), 'QueueName'] } }],
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
    });
  });
});

describe('the functions', () => {
  it('are one per route plus the fallback, each in its family’s stack, and one per worker, schedule and stream worker in the parent', () => {
    const inParent = workers.length + schedules.length + streamWorkers.length;
    expect(resourcesOf(live, 'AWS::Lambda::Function')).toHaveLength(routes.length + 1 + inParent);
    expect(resourcesOf(extended, 'AWS::Lambda::Function')).toHaveLength(routes.length + 3 + 1 + 1 + schedules.length);
    live.template.resourceCountIs('AWS::Lambda::Function', inParent);
    for (const family of live.stack.families) {
      for (const operation of family.functions.keys()) expect(familyOf(operation), operation).toBe(family.name);
    }
    expect(live.stack.families.flatMap((family) => [...family.functions.keys()]).sort()).toEqual(
      [...routes, fallback].map((route) => route.operation).sort(),
    );
  });

  it('all run the same way: Node.js 22 on arm64, ESM handler, Powertools, source maps, a log group', () => {
    for (const { logicalId, properties } of resourcesOf(extended, 'AWS::Lambda::Function')) {
      expect(properties, logicalId).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        MemorySize: 1024,
        Handler: 'index.handler',
        LoggingConfig: { LogGroup: { Ref: expect.any(String) } },
        Environment: {
          Variables: expect.objectContaining({
            POWERTOOLS_SERVICE_NAME: 'licensing',
            NODE_OPTIONS: '--enable-source-maps',
            TABLE_NAME: { Ref: tableId },
            PUBLIC_URL: { 'Fn::GetAtt': [apiId, 'ApiEndpoint'] },
            ALLOW_PRIVATE_WEBHOOK_TARGETS: 'false',
          }),
        },
      });
    }
    for (const { logicalId, properties } of resourcesOf(extended, 'AWS::Logs::LogGroup')) {
      expect(properties, logicalId).toEqual({ RetentionInDays: 30 });
    }
  });

  it('answer the API within its limit; workers get their queue’s timeout', () => {
    const timeoutOf = (operation: string) => propertiesOf(extended, functionFor(extended.stack, operation)).Timeout;

    for (const route of [...routes, fallback]) expect(timeoutOf(route.operation)).toBe(10);
    expect(timeoutOf(deliverWebhooks.operation)).toBe(workerTimeoutSeconds.webhooks);
  });

  it('carry the operator settings', () => {
    const configured = synthesize({
      settings: {
        publicUrl: 'https://licensing.example',
        allowPrivateWebhookTargets: true,
        webhookRetryDelays: '60,300',
        rateLimitPerAddress: 120,
      },
    });
    for (const { logicalId, properties } of resourcesOf(configured, 'AWS::Lambda::Function')) {
      expect(properties, logicalId).toMatchObject({
        Environment: {
          Variables: expect.objectContaining({
            PUBLIC_URL: 'https://licensing.example',
            ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
            WEBHOOK_RETRY_DELAYS: '60,300',
            RATE_LIMIT_PER_ADDRESS: '120',
          }),
        },
      });
    }
    expect(environmentOf(live, functionFor(live.stack, 'users.list'))).not.toHaveProperty('WEBHOOK_RETRY_DELAYS');
    expect(environmentOf(live, functionFor(live.stack, 'users.list'))).not.toHaveProperty('RATE_LIMIT_PER_ADDRESS');
  });
});

describe('the API', () => {
  it('is one HTTP API with an auto-deployed default stage, both in the parent stack', () => {
    for (const holder of stacksOf(live)) {
      live.templateOf(holder).resourceCountIs('AWS::ApiGatewayV2::Api', holder === live.stack ? 1 : 0);
      live.templateOf(holder).resourceCountIs('AWS::ApiGatewayV2::Stage', holder === live.stack ? 1 : 0);
    }
    live.template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    live.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', { StageName: '$default', AutoDeploy: true });
    expect(logicalIdOf(live.stack.defaultStage)).toBe(
      Object.keys(live.template.findResources('AWS::ApiGatewayV2::Stage', { Properties: { ApiId: { Ref: apiId } } }))[0],
    );
  });

  it('has one route per route-table entry plus $default, all on that API', () => {
    const apiRoutes = resourcesOf(live, 'AWS::ApiGatewayV2::Route');
    expect(apiRoutes).toHaveLength(routes.length + 1);
    for (const { logicalId, properties } of apiRoutes) expect(properties.ApiId, logicalId).toEqual({ Ref: apiId });
  });

  it.each([...routes.map((route) => [`${route.method} ${route.path}`, route.operation]), ['$default', fallback.operation]])(
    '%s invokes the %s function, from the function’s own stack',
    (routeKey, operation) => {
      const fn = functionFor(live.stack, operation);
      const template = live.templateOf(fn);
      const [route] = Object.values(template.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: routeKey } }));
      expect(route, `no route ${routeKey}`).toBeDefined();

      const integrationId = route?.Properties.Target['Fn::Join'][1][1].Ref as string;
      expect(template.toJSON().Resources[integrationId].Properties).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        PayloadFormatVersion: '2.0',
        IntegrationUri: { 'Fn::GetAtt': [logicalIdOf(fn), 'Arn'] },
      });
      const [permission] = Object.values(
        template.findResources('AWS::Lambda::Permission', { Properties: { FunctionName: { 'Fn::GetAtt': [logicalIdOf(fn), 'Arn'] } } }),
      );
      expect(inParentTerms(live, fn, permission?.Properties)).toMatchObject({
        Action: 'lambda:InvokeFunction',
        Principal: 'apigateway.amazonaws.com',
        SourceArn: { 'Fn::Join': ['', expect.arrayContaining([{ Ref: apiId }])] },
      });
    },
  );
});

describe('the workers', () => {
  it('are fed by their queue in batches, retrying only the messages they report as failed', () => {
    const { template, stack } = extended;
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    expect(resourcesOf(extended, 'AWS::Lambda::EventSourceMapping')).toHaveLength(1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queueIdOf(extended, deliverWebhooks.queue, 'Queue'), 'Arn'] },
      FunctionName: { Ref: logicalIdOf(functionFor(stack, deliverWebhooks.operation)) },
      BatchSize: deliverWebhooks.batchSize,
      ScalingConfig: { MaximumConcurrency: deliverWebhooks.maxConcurrency },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('exist only as the route table lists them, each with the concurrency it declares', () => {
    live.template.resourceCountIs('AWS::Lambda::EventSourceMapping', workers.length + streamWorkers.length);
    for (const worker of workers) {
      expect(worker.maxConcurrency, worker.operation).toBeGreaterThanOrEqual(2);
      live.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: logicalIdOf(functionFor(live.stack, worker.operation)) },
        ScalingConfig: { MaximumConcurrency: worker.maxConcurrency },
      });
    }
  });
});

describe('the schedules', () => {
  const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };

  it.each(schedules.map((schedule) => [schedule.operation, schedule]))(
    '%s runs at its rate from an EventBridge rule, never retried, within its timeout',
    (_, schedule) => {
      const fn = functionFor(live.stack, schedule.operation);
      const functionArn = { 'Fn::GetAtt': [logicalIdOf(fn), 'Arn'] };
      const rules = Object.entries(live.template.findResources('AWS::Events::Rule')).filter(([, rule]) =>
        rule.Properties.Targets.some((target: { Arn: unknown }) => JSON.stringify(target.Arn) === JSON.stringify(functionArn)),
      );
      expect(rules).toHaveLength(1);
      const [[ruleId, rule]] = rules;
      expect(rule.Properties).toMatchObject({
        ScheduleExpression: `rate(${schedule.everyMinutes} minute${schedule.everyMinutes === 1 ? '' : 's'})`,
        State: 'ENABLED',
        Targets: [expect.objectContaining({ Arn: functionArn, RetryPolicy: { MaximumRetryAttempts: 0 } })],
      });
      live.template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        FunctionName: functionArn,
        Principal: 'events.amazonaws.com',
        SourceArn: { 'Fn::GetAtt': [ruleId, 'Arn'] },
      });
      live.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: logicalIdOf(fn) },
        MaximumRetryAttempts: 0,
      });
      expect(propertiesOf(live, fn).Timeout).toBe(schedule.timeoutSeconds);
    },
  );

  it('lets the heartbeat sweeper query the due index and write the table, and nothing else (the outbox relay sends its events)', () => {
    const sweeper = functionFor(live.stack, 'workers.sweepHeartbeats');
    const statements = statementsOf(live, sweeper);
    const onTable = statements.filter((statement) => JSON.stringify(statement.Resource).includes(tableId));
    const dueIndex = { 'Fn::Join': ['', [tableArn, '/index/DUE']] };
    expect(
      onTable.some(
        (statement) => statement.Action.includes('dynamodb:Query') && JSON.stringify(statement.Resource).includes(JSON.stringify(dueIndex)),
      ),
    ).toBe(true);
    expect(onTable.flatMap((statement) => statement.Action)).toEqual(
      expect.arrayContaining(['dynamodb:UpdateItem', 'dynamodb:DeleteItem']),
    );
    expect(
      statements
        .flatMap((statement) => statement.Action)
        .filter((action) => action.startsWith('kms:') || action.startsWith('ses:') || action.startsWith('sqs:')),
    ).toEqual([]);
    expect(environmentOf(live, sweeper)).not.toHaveProperty(queueDefinitions.webhooks.urlVariable);
  });
});

describe('the outbox relay', () => {
  const [relay] = streamWorkers;
  const fn = functionFor(live.stack, relay.operation);
  const failureQueue = live.stack.streamFailureQueues.get(relay.operation);
  const failureQueueArn = { 'Fn::GetAtt': [failureQueue && logicalIdOf(failureQueue), 'Arn'] };
  const streamArn = { 'Fn::GetAtt': [tableId, 'StreamArn'] };

  it('is the one stream worker, relaying what the outbox entries send', () => {
    expect(streamWorkers.map((worker) => worker.operation)).toEqual(['workers.relayOutbox']);
    expect(relay.access).toEqual(outboxAccess());
    expect([...relay.access].sort()).toEqual(['queue:cascades', 'queue:mail', 'queue:purge', 'queue:webhooks']);
  });

  it('reads the stream from its oldest record, only the outbox records, retrying a failed record boundedly and never losing one silently', () => {
    const mappings = resourcesOf(live, 'AWS::Lambda::EventSourceMapping').filter(
      ({ properties }) => JSON.stringify(properties.FunctionName) === JSON.stringify({ Ref: logicalIdOf(fn) }),
    );
    expect(mappings.map(({ properties }) => properties)).toEqual([
      {
        FunctionName: { Ref: logicalIdOf(fn) },
        EventSourceArn: streamArn,
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: relay.batchSize,
        MaximumBatchingWindowInSeconds: relay.maxBatchingWindowSeconds,
        BisectBatchOnFunctionError: true,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        MaximumRetryAttempts: relay.retryAttempts,
        MaximumRecordAgeInSeconds: relay.maxRecordAgeSeconds,
        DestinationConfig: { OnFailure: { Destination: failureQueueArn } },
        FilterCriteria: { Filters: outboxFilters().map((pattern) => ({ Pattern: JSON.stringify(pattern) })) },
      },
    ]);
    expect(relay.retryAttempts).toBeGreaterThan(0);
    // Lambda evaluates at most five filters per event source by default.
    expect(outboxFilters().length).toBeLessThanOrEqual(5);
  });

  it('may read the table’s stream, send to the outbox queues and its on-failure queue, and nothing else: no table access', () => {
    const statements = statementsOf(live, fn);
    const ownLogs = { 'Fn::GetAtt': [logicalIdOf(fn.logGroup), 'Arn'] };
    const grants = statements.flatMap((statement) =>
      [statement.Resource].flat().flatMap((resource) => statement.Action.map((action) => `${action} on ${JSON.stringify(resource)}`)),
    );
    const queueArn = (name: QueueName) => ({ 'Fn::GetAtt': [queueIdOf(live, name, 'Queue'), 'Arn'] });
    const sends = (arn: unknown) =>
      ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'].map((action) => `${action} on ${JSON.stringify(arn)}`);
    expect(grants.sort()).toEqual(
      [
        ...['logs:CreateLogStream', 'logs:PutLogEvents'].map((action) => `${action} on ${JSON.stringify(ownLogs)}`),
        ...['xray:PutTelemetryRecords', 'xray:PutTraceSegments'].map((action) => `${action} on "*"`),
        ...['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'].map(
          (action) => `${action} on ${JSON.stringify(streamArn)}`,
        ),
        ...(['cascades', 'mail', 'purge', 'webhooks'] as const).flatMap((name) => sends(queueArn(name))),
        ...sends(failureQueueArn),
      ].sort(),
    );
    expect(environmentOf(live, fn)).toMatchObject(
      Object.fromEntries(queueNames.map((name) => [queueDefinitions[name].urlVariable, { Ref: queueIdOf(live, name, 'Queue') }])),
    );
    expect(propertiesOf(live, fn).Timeout).toBe(relay.timeoutSeconds);
  });

  it('has an on-failure queue, encrypted and refusing unencrypted connections, that alarms as soon as it holds a description', () => {
    expect(failureQueue).toBeDefined();
    if (!failureQueue) return;
    const id = logicalIdOf(failureQueue);
    expect(live.template.toJSON().Resources[id].Properties).toEqual({
      MessageRetentionPeriod: relay.failureRetentionSeconds,
      SqsManagedSseEnabled: true,
    });
    live.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: id }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    live.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [id, 'QueueName'] } }],
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
    });
    live.template.hasOutput(`${constructIdOf(relay.operation)}FailureQueueUrl`, { Value: { Ref: id } });
  });

  it('is what sends after a commit: no route, worker or schedule sends a first message itself', () => {
    // The delivery worker sends the attempts after the first, the purge and cascades workers their next steps.
    const senders = [...routes, fallback, ...workers, ...schedules]
      .filter((entry) => entry.access.some((access) => access.startsWith('queue:')))
      .map((entry) => entry.operation)
      .sort();
    expect(senders).toEqual(['workers.cascade', 'workers.deliverWebhook', 'workers.purgeEnvironment']);
  });

  it('lets the cascades worker consume its queue, write the table, and send its next steps, nothing else', () => {
    const worker = functionFor(live.stack, 'workers.cascade');
    const statements = statementsOf(live, worker);
    const cascades = { 'Fn::GetAtt': [queueIdOf(live, 'cascades', 'Queue'), 'Arn'] };
    const consume = statements.find((statement) => statement.Action.includes('sqs:ReceiveMessage'));
    expect(consume?.Resource).toEqual(cascades);
    const sends = statements.filter((statement) => statement.Action.includes('sqs:SendMessage'));
    expect(sends.flatMap((statement) => [statement.Resource].flat())).toEqual([cascades]);
    const onTable = statements.filter((statement) => JSON.stringify(statement.Resource).includes(tableId));
    expect(onTable.flatMap((statement) => statement.Action)).toEqual(
      expect.arrayContaining(['dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']),
    );
    expect(
      statements.flatMap((statement) => statement.Action).filter((action) => action.startsWith('kms:') || action.startsWith('ses:')),
    ).toEqual([]);
    expect(environmentOf(live, worker)).toMatchObject({
      [queueDefinitions.cascades.urlVariable]: { Ref: queueIdOf(live, 'cascades', 'Queue') },
    });
    expect(propertiesOf(live, worker).Timeout).toBe(workerTimeoutSeconds.cascades);
    live.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: cascades,
      FunctionName: { Ref: logicalIdOf(worker) },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });
});

describe('grants follow the declared access and nothing more', () => {
  const writes = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
  const allRoutes = [...routes, resetPassword, testWebhook, sealSecrets];
  const functionOf = (route: Pick<Route, 'operation'>) => functionFor(extended.stack, route.operation);

  it.each(
    allRoutes
      .filter((route) => route.access.includes('table:read') && !route.access.includes('table:write'))
      .map((route) => route.operation),
  )('read-only %s can read the table and its indexes but not write', (operation) => {
    // The one conditional statement, giving an account its signing key, is checked below.
    const statements = statementsOf(extended, functionOf({ operation })).filter((statement) => statement.Condition === undefined);
    const actions = statements.flatMap((statement) => statement.Action);
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
    for (const write of writes) expect(actions).not.toContain(write);
    // The table and each index of the table definition by name, no wildcard.
    const table = [
      { 'Fn::GetAtt': [tableId, 'Arn'] },
      ...tableDefinition.indexes.map((index) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [tableId, 'Arn'] }, `/index/${index.name}`]] })),
    ];
    const query = statements.find((statement) => statement.Action.includes('dynamodb:Query'));
    expect(query?.Resource).toEqual(expect.arrayContaining(table));
    expect(query?.Resource).toHaveLength(table.length);
  });

  it.each(allRoutes.filter((route) => route.access.includes('table:write')).map((route) => route.operation))(
    '%s can write the table',
    (operation) => {
      expect(actionsOf(extended, functionOf({ operation }))).toEqual(expect.arrayContaining(writes));
    },
  );

  it('lets the fallback read the table and sign, nothing more: its 404 is signed by the account the path names', () => {
    // The trace writes are what tracing grants every function (tracing.test.ts); the one UpdateItem
    // is the conditional statement giving an account its signing key, checked below.
    expect(actionsOf(extended, functionOf(fallback)).sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:DescribeTable',
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:Scan',
      'dynamodb:UpdateItem',
      'kms:Decrypt',
      'kms:GenerateDataKey',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'xray:PutTelemetryRecords',
      'xray:PutTraceSegments',
    ]);
  });

  it('lets only functions declaring mail:send send mail, from the configured identity only', () => {
    for (const route of allRoutes.filter((candidate) => !candidate.access.includes('mail:send'))) {
      expect(
        actionsOf(extended, functionOf(route)).filter((action) => action.startsWith('ses:')),
        route.operation,
      ).toEqual([]);
      expect(environmentOf(extended, functionOf(route)), route.operation).not.toHaveProperty('MAIL_FROM');
    }

    const mail = statementsOf(extended, functionOf(resetPassword)).find((statement) => statement.Action.includes('ses:SendEmail'));
    expect(mail).toMatchObject({ Effect: 'Allow', Action: ['ses:SendEmail', 'ses:SendRawEmail'] });
    const identity = `arn:aws:ses:${env.region}:${env.account}:identity`;
    expect([mail?.Resource].flat().sort()).toEqual([`${identity}/licensing.example`, `${identity}/${baseSettings.mailFrom}`]);
    expect(environmentOf(extended, functionOf(resetPassword))).toMatchObject({ MAIL_FROM: baseSettings.mailFrom });
  });

  it('lets only functions declaring a queue send to it, and tells them its URL', () => {
    const webhooksQueueId = queueIdOf(extended, 'webhooks', 'Queue');
    const send = statementsOf(extended, functionOf(testWebhook)).find((statement) => statement.Action.includes('sqs:SendMessage'));
    expect(send?.Resource).toEqual({ 'Fn::GetAtt': [webhooksQueueId, 'Arn'] });
    expect(environmentOf(extended, functionOf(testWebhook))).toMatchObject({
      [queueDefinitions.webhooks.urlVariable]: { Ref: webhooksQueueId },
    });

    for (const route of allRoutes.filter((candidate) => !candidate.access.some((access) => access.startsWith('queue:')))) {
      expect(actionsOf(extended, functionOf(route)), route.operation).not.toContain('sqs:SendMessage');
      for (const name of queueNames) {
        expect(environmentOf(extended, functionOf(route)), route.operation).not.toHaveProperty(queueDefinitions[name].urlVariable);
      }
    }
  });

  it('lets only functions declaring key:seal or key:unseal use the sealing key, each for exactly that, and tells them the key', () => {
    const keyArn = { 'Fn::GetAtt': [sealingKeyId, 'Arn'] };
    const kmsActions = {
      'key:seal': ['kms:GenerateDataKey'],
      'key:unseal': ['kms:Decrypt'],
    } as const;
    const all: { entry: Route | Worker; fn: ServiceFunction; synthesis: Synthesis }[] = [
      ...allRoutes.map((route) => ({ entry: route, fn: functionOf(route), synthesis: extended })),
      ...workers.map((worker) => ({ entry: worker, fn: functionFor(live.stack, worker.operation), synthesis: live })),
    ];
    expect(
      all
        .filter(({ entry }) => entry.access.includes('key:seal') && entry.access.includes('key:unseal'))
        .map(({ entry }) => entry.operation),
    ).toEqual([sealSecrets.operation]);
    for (const { entry, fn, synthesis } of all) {
      const expected = (Object.keys(kmsActions) as (keyof typeof kmsActions)[])
        .filter((access) => entry.access.includes(access))
        .flatMap((access) => kmsActions[access]);
      const statements = statementsOf(synthesis, fn).filter(
        (statement) =>
          statement.Action.some((action) => action.startsWith('kms:')) && JSON.stringify(statement.Resource) === JSON.stringify(keyArn),
      );
      expect(statements.flatMap((statement) => statement.Action).sort(), entry.operation).toEqual([...expected].sort());
      if (expected.length > 0) expect(environmentOf(synthesis, fn), entry.operation).toMatchObject({ SEALING_KMS_KEY: keyArn });
      else expect(environmentOf(synthesis, fn), entry.operation).not.toHaveProperty('SEALING_KMS_KEY');
    }
  });

  it('grants the sealing key where secrets are sealed (second factors, the reset worker) and unsealed (log-in and second factors, the delivery worker), nowhere else', () => {
    const holders = (access: Access) =>
      [...routes, fallback, ...workers, ...schedules]
        .filter((entry) => entry.access.includes(access))
        .map((entry) => entry.operation)
        .sort();
    expect(holders('key:seal')).toEqual(['secondFactors.create', 'workers.passwordReset']);
    expect(holders('key:unseal')).toEqual(['secondFactors.delete', 'secondFactors.update', 'tokens.generate', 'workers.deliverWebhook']);
  });

  it('lets every route under an account, and nothing else, sign with the signing keys: unseal them, and give an account its key', () => {
    const keyArn = { 'Fn::GetAtt': [logicalIdOf(live.stack.signingKeysKey), 'Arn'] };
    const signers = [...routes, fallback, ...workers, ...schedules]
      .filter((entry) => entry.access.includes('account:sign'))
      .map((entry) => entry.operation);
    // Every route under an account but the hosted reset form, which reads no account; and the
    // fallback, whose 404 for a path under an account is that account's answer.
    const underAccount = routes.filter((route) => route.path.startsWith('/v1/accounts/{account}') && route.operation !== 'passwords.form');
    expect(signers).toEqual([...underAccount.map((route) => route.operation), fallback.operation]);
    const all: { entry: Route | Worker; synthesis: Synthesis }[] = [
      ...allRoutes.map((route) => ({ entry: route, synthesis: extended })),
      ...workers.map((worker) => ({ entry: worker, synthesis: live })),
    ];
    for (const { entry, synthesis } of all) {
      const fn = functionFor(synthesis.stack, entry.operation);
      const statements = statementsOf(synthesis, fn);
      const onKey = statements.filter((statement) => JSON.stringify(statement.Resource) === JSON.stringify(keyArn));
      const provision = statements.filter((statement) => statement.Condition !== undefined);
      if (!entry.access.includes('account:sign')) {
        expect([...onKey, ...provision], entry.operation).toEqual([]);
        expect(environmentOf(synthesis, fn), entry.operation).not.toHaveProperty('SIGNING_KMS_KEY');
        continue;
      }
      expect(onKey.flatMap((statement) => statement.Action).sort(), entry.operation).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
      expect(provision, entry.operation).toEqual([
        expect.objectContaining({
          Action: ['dynamodb:UpdateItem'],
          Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
          Condition: {
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ACCOUNT#*'] },
            'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['PK', 'SK', 'signingKey'] },
            StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
          },
        }),
      ]);
      expect(environmentOf(synthesis, fn), entry.operation).toMatchObject({ SIGNING_KMS_KEY: keyArn });
    }
  });

  it('lets a worker consume its own queue', () => {
    const worker = functionFor(extended.stack, deliverWebhooks.operation);
    const consume = statementsOf(extended, worker).find((statement) => statement.Action.includes('sqs:ReceiveMessage'));
    expect(consume?.Action).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage']));
    expect(consume?.Resource).toEqual({ 'Fn::GetAtt': [queueIdOf(extended, deliverWebhooks.queue, 'Queue'), 'Arn'] });
  });
});

describe('the outputs', () => {
  it('name the API URL, the table, the sealing key and every queue with its dead-letter queue', () => {
    live.template.hasOutput('ApiUrl', { Value: { 'Fn::GetAtt': [apiId, 'ApiEndpoint'] } });
    live.template.hasOutput('TableName', { Value: { Ref: tableId } });
    live.template.hasOutput('SealingKeyArn', { Value: { 'Fn::GetAtt': [sealingKeyId, 'Arn'] } });
    live.template.hasOutput('SigningKeysKeyArn', { Value: { 'Fn::GetAtt': [logicalIdOf(live.stack.signingKeysKey), 'Arn'] } });
    for (const name of queueNames) {
      live.template.hasOutput(`${constructIdOf(name)}QueueUrl`, { Value: { Ref: queueIdOf(live, name, 'Queue') } });
      live.template.hasOutput(`${constructIdOf(name)}DeadLetterQueueUrl`, { Value: { Ref: queueIdOf(live, name, 'DeadLetterQueue') } });
    }
    expect(Object.keys(live.template.toJSON().Outputs)).toEqual(
      expect.arrayContaining(['ApiUrl', 'TableName', 'WebhooksQueueUrl', 'PurgeQueueUrl', 'MailQueueUrl']),
    );
  });
});

describe('synthesis', () => {
  // The family stacks' constructs report with the parent: nested stacks are part of its artifact.
  it('passes CloudFormation validation and raises no warnings or errors, in any stack', () => {
    Annotations.fromStack(live.stack).hasNoWarning('*', Match.anyValue());
    Annotations.fromStack(live.stack).hasNoError('*', Match.anyValue());
  });
});
