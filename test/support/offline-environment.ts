/**
 * Runs in every worker of the `fast` project (vitest.config.ts) in place of aws-environment.ts:
 * no local stack runs, so the SDK is pointed at an address where nothing listens (a test that
 * forgot its mock fails at once rather than reaching a real service), and sealing gets a master
 * key of its own in a private temporary file.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queues } from '#shared/queues.ts';
import type { QueueName } from '#shared/routes.ts';
import { pointSdkAt } from './sdk-environment.ts';

const NOWHERE = 'http://127.0.0.1:9';
const masterKeyFile = join(mkdtempSync(join(tmpdir(), 'licensing-fast-')), 'master.key');
writeFileSync(masterKeyFile, randomBytes(32), { mode: 0o600 });

pointSdkAt({
  region: 'us-east-1',
  api: NOWHERE,
  dynamodb: NOWHERE,
  sqs: NOWHERE,
  ses: NOWHERE,
  tableName: 'offline',
  masterKeyFile,
  queueUrls: Object.fromEntries(Object.keys(queues).map((name) => [name, `${NOWHERE}/000000000000/${name}`])) as Record<QueueName, string>,
});
