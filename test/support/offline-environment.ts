/**
 * Runs in every worker of the `fast` project (vitest.config.ts) in place of aws-environment.ts:
 * no local stack runs, so the SDK is pointed at an address where nothing listens (a test that
 * forgot its mock fails at once rather than reaching a real service), and sealing gets the run's
 * master key (offline-setup.ts).
 */
import { inject } from 'vitest';
import { queues } from '#shared/queues.ts';
import type { QueueName } from '#shared/routes.ts';
import { pointSdkAt } from './sdk-environment.ts';

const NOWHERE = 'http://127.0.0.1:9';

pointSdkAt({
  region: 'us-east-1',
  api: NOWHERE,
  dynamodb: NOWHERE,
  sqs: NOWHERE,
  ses: NOWHERE,
  tableName: 'offline',
  masterKeyFile: inject('offlineMasterKeyFile'),
  queueUrls: Object.fromEntries(Object.keys(queues).map((name) => [name, `${NOWHERE}/000000000000/${name}`])) as Record<QueueName, string>,
});
