/**
 * `npm start`: the whole service on this machine. See the "Local stack" section of the
 * architecture notes.
 *
 *   PORT=3000 DATA_DIR=.data DYNAMODB_PORT=8000 SQS_PORT=9324 SES_PORT=8005  (0 = any free port)
 *                 DATA_DIR is made its owner's alone (0700, its files 0600: dev/local/stack.ts)
 *   HEARTBEAT_SWEEP_SECONDS=60  seconds between heartbeat sweeps (0 = none)
 *   --in-memory   keep no data between runs
 *   --no-seed     do not create the demo account
 *   --ready-json  once started, print one line `LOCAL_STACK_READY {...endpoints}` for programs
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type LocalStack, startLocalStack } from '#dev/local/stack.ts';

// Lambda runs Node.js 22; the SDK's notice about Node.js 20 says nothing about this stack.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const flags = new Set(process.argv.slice(2));
const inMemory = flags.has('--in-memory');
const seed = !flags.has('--no-seed');
const readyJson = flags.has('--ready-json');

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name} must be a port number, got "${raw}"`);
  return port;
}

function secondsFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 0) throw new Error(`${name} must be a whole number of seconds, got "${raw}"`);
  return seconds;
}

const dataDir = inMemory ? undefined : resolve(process.env.DATA_DIR || '.data');
const startedAt = performance.now();
let sweepSeconds = 60;

let stack: LocalStack;
try {
  sweepSeconds = secondsFromEnv('HEARTBEAT_SWEEP_SECONDS', sweepSeconds);
  stack = await startLocalStack({
    apiPort: portFromEnv('PORT', 3000),
    dynamodbPort: portFromEnv('DYNAMODB_PORT', 8000),
    sqsPort: portFromEnv('SQS_PORT', 9324),
    sesPort: portFromEnv('SES_PORT', 8005),
    scheduleSeconds: { 'workers.sweepHeartbeats': sweepSeconds },
    dataDir,
  });
} catch (error) {
  console.error('The local stack could not start:', error instanceof Error ? error.message : error);
  process.exit(1);
}

let stopping = false;
async function shutdown(reason: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (!readyJson) console.log(`\nStopping the local stack (${reason})...`);
  await stack.stop();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGHUP', () => void shutdown('SIGHUP'));

// Whoever started us may die without signalling (a killed test runner); we then stop too,
// rather than keep ports and a JVM alive with nobody to stop them.
const parentAtStart = process.ppid;
setInterval(() => {
  if (process.ppid !== parentAtStart) void shutdown('parent process exited');
}, 1000).unref();

const endpoints = {
  api: stack.api,
  dynamodb: stack.dynamodb,
  sqs: stack.sqs,
  ses: stack.ses,
  region: stack.region,
  tableName: stack.tableName,
  queueUrls: stack.queueUrls,
  masterKeyFile: stack.masterKeyFile,
};

if (dataDir) {
  // Lets the operator CLI reach the running stack. The stack has made the directory private.
  writeFileSync(join(dataDir, 'stack.json'), `${JSON.stringify(endpoints, null, 2)}\n`);
}

const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
console.log(
  [
    `Local stack ready in ${seconds} s${dataDir ? `, data in ${dataDir}` : ' (in memory: nothing is kept)'}`,
    `  API        ${stack.api}`,
    `  DynamoDB   ${stack.dynamodb}   table "${stack.tableName}"`,
    `  SQS        ${stack.sqs}   queues ${Object.values(stack.queueUrls)
      .map((url) => url.split('/').pop())
      .join(', ')}`,
    `  Mail       ${stack.ses}/   (every mail sent shows up here)`,
    `  Heartbeats ${sweepSeconds > 0 ? `swept every ${sweepSeconds} s (HEARTBEAT_SWEEP_SECONDS)` : 'not swept (HEARTBEAT_SWEEP_SECONDS=0)'}`,
  ].join('\n'),
);

if (seed) {
  try {
    // Loaded only now: the seed uses the store, which reads the environment set above.
    const { seedDemoAccount } = await import('#dev/local/seed.ts');
    const demo = await seedDemoAccount();
    if (demo) {
      console.log(
        ['Demo admin created:', `  e-mail     ${demo.email}`, `  password   ${demo.password}`, `  token      ${demo.token}`].join('\n'),
      );
    }
  } catch (error) {
    console.error('Seeding the demo account failed:', error);
  }
}

if (readyJson) console.log(`LOCAL_STACK_READY ${JSON.stringify(endpoints)}`);
console.log('Press Ctrl-C to stop.');
