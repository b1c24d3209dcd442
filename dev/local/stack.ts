/**
 * The whole local stack in one call: DynamoDB Local with the table and the poller of its stream
 * (the outbox relay), the SQS server with the queues and their poller, the SES server, the HTTP
 * API, and the schedules on timers, all from the same definitions the CDK stack uses. Handlers run in this process, so the environment they
 * read on AWS is set here, before any handler module is loaded.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMasterKeyFile } from '#shared/auth/seal.ts';
import { queues, workerTimeoutSeconds } from '#shared/queues.ts';
import {
  fallback,
  type QueueName,
  routes,
  type Schedule,
  type StreamWorker,
  schedules,
  streamWorkers,
  type Worker,
  workers,
} from '#shared/routes.ts';
import { installFaults } from '../faults.ts';
import { type DynamoDbLocal, startDynamoDbLocal } from './dynamodb.ts';
import { LOCAL_PATH_PREFIX, type LocalHttpServer, startHttpServer } from './http-adapter.ts';
import { type IdleReport, type IdleSources, idleResponse, waitUntilIdle } from './idle.ts';
import { type Poller, type PollerActivity, startPoller } from './poller.ts';
import { type Scheduler, startScheduler } from './scheduler.ts';
import { type LocalSes, startSes } from './ses.ts';
import { failureQueueName, type LocalSqs, startSqs } from './sqs.ts';
import { type StreamPoller, startStreamPoller } from './streams.ts';
import { ensureTable, LOCAL_TABLE_NAME } from './table-setup.ts';

/** What a program (a test run, the operator CLI) needs to reach a running stack. */
export interface LocalStackEndpoints {
  api: string;
  dynamodb: string;
  sqs: string;
  /** SES API endpoint; its page at `/` shows the mails, `GET /store` returns them. */
  ses: string;
  region: string;
  tableName: string;
  queueUrls: Record<QueueName, string>;
  /** The master key file that plays KMS's part in sealing (secrets, signing keys). */
  masterKeyFile: string;
}

export interface LocalStackOptions {
  apiPort?: number;
  dynamodbPort?: number;
  sqsPort?: number;
  sesPort?: number;
  /**
   * Where DynamoDB keeps its file and the master key lives; omitted = in memory. Made its owner's
   * alone (privateDataDirectory), and this process's umask 077 from then on.
   */
  dataDir?: string;
  /** Repository root: handler paths in the route table are relative to it. */
  root?: string;
  workers?: readonly Worker[];
  schedules?: readonly Schedule[];
  streamWorkers?: readonly StreamWorker[];
  /**
   * Seconds between the runs of a schedule, by its operation, in place of its `everyMinutes`
   * (0: never run; `npm start` reads HEARTBEAT_SWEEP_SECONDS for the heartbeat sweeper).
   */
  scheduleSeconds?: Readonly<Record<string, number>>;
  log?: (message: string, error?: unknown) => void;
}

export interface LocalStack extends LocalStackEndpoints {
  dynamodbProcess: DynamoDbLocal;
  sqsServer: LocalSqs;
  sesServer: LocalSes;
  apiServer: LocalHttpServer;
  /** Waits until the stream is relayed, the queues are empty and no batch or scheduled run runs (idle.ts); also `GET /_local/idle` on the API. */
  waitUntilIdle(timeoutMs: number): Promise<IdleReport>;
  stop(): Promise<void>;
}

export const REPOSITORY_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

function setDefault(name: string, value: string): void {
  if (process.env[name] === undefined || process.env[name] === '') process.env[name] = value;
}

/** The variables the functions read on AWS, pointed at the local services. */
function applyHandlerEnvironment(endpoints: LocalStackEndpoints): void {
  setDefault('AWS_REGION', endpoints.region);
  setDefault('AWS_ACCESS_KEY_ID', 'local');
  setDefault('AWS_SECRET_ACCESS_KEY', 'local');
  process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoints.dynamodb;
  process.env.AWS_ENDPOINT_URL_SQS = endpoints.sqs;
  process.env.AWS_ENDPOINT_URL_SES = endpoints.ses;
  process.env.TABLE_NAME = endpoints.tableName;
  for (const name of Object.keys(queues) as QueueName[]) process.env[queues[name].urlVariable] = endpoints.queueUrls[name];
  setDefault('MAIL_FROM', 'no-reply@licensing.local');
  process.env.PUBLIC_URL = endpoints.api;
  // Local webhook targets are usually on this machine; on AWS private targets stay refused.
  setDefault('ALLOW_PRIVATE_WEBHOOK_TARGETS', 'true');
  // The master key plays the part the stack's KMS key plays on AWS.
  process.env.SEALING_MASTER_KEY_FILE = endpoints.masterKeyFile;
}

/**
 * The data directory, its owner's alone: it holds license keys, webhook signing secrets, password
 * hashes and the master key. Created 0700; one kept from an earlier run is tightened, every folder
 * in it 0700 and every file 0600 (links are left alone: what they point to is not the stack's).
 *
 * What is written there from now on is kept so by the process's umask, 077: it reaches every
 * writer at once, this process's (stack.json, the stream positions) and DynamoDB Local's, a Java
 * child that inherits it and has no setting for the mode of its files. A mode given at each write
 * would miss the JVM's and any file added later.
 */
function privateDataDirectory(dataDir: string): string {
  const directory = resolve(dataDir);
  process.umask(0o077);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const tighten = (folder: string) => {
    chmodSync(folder, 0o700);
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) tighten(path);
      else if (entry.isFile()) chmodSync(path, 0o600);
    }
  };
  tighten(directory);
  return directory;
}

/**
 * The master key that seals secrets at rest: `master.key` in the data directory, created on the
 * first start (mode 0600) and kept, as the data sealed with it is. In memory, a key of this run
 * only, in a directory removed when the stack stops.
 */
function masterKey(dataDir: string | undefined): { file: string; stop(): Promise<void> } {
  const directory = dataDir ?? mkdtempSync(join(tmpdir(), 'licensing-keys-'));
  const file = join(directory, 'master.key');
  createMasterKeyFile(file);
  return { file, stop: async () => (dataDir ? undefined : rmSync(directory, { recursive: true, force: true })) };
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  // The handlers run in this process: their AWS clients fail as FAULT_RATE says when they are made (dev/faults.ts).
  installFaults();
  const region = process.env.AWS_REGION || 'us-east-1';
  const root = options.root ?? REPOSITORY_ROOT;
  const started: Array<{ stop(): Promise<void> }> = [];
  const streamConsumers = options.streamWorkers ?? streamWorkers;
  const dataDir = options.dataDir ? privateDataDirectory(options.dataDir) : undefined;
  const stopAll = async () => {
    for (const part of started.reverse()) await part.stop().catch(() => undefined);
    started.length = 0;
  };

  // The JVM is the slowest to come up, so the other servers start while it boots.
  const dynamodbStarting = startDynamoDbLocal({
    port: options.dynamodbPort ?? 8000,
    dataDir: dataDir ? join(dataDir, 'dynamodb') : undefined,
  });
  // Marked handled now; awaited below, after the other servers are up.
  dynamodbStarting.catch(() => undefined);
  try {
    const [sqsServer, sesServer] = await Promise.all([
      startSqs({
        port: options.sqsPort ?? 9324,
        region,
        failureQueues: streamConsumers.map((worker) => failureQueueName(worker.operation)),
      }),
      startSes({ port: options.sesPort ?? 8005 }),
    ]);
    started.push(sqsServer, sesServer);
    const dynamodbProcess = await dynamodbStarting;
    // Stopped last: whatever still runs may need the table until then.
    started.unshift(dynamodbProcess);
    await ensureTable(dynamodbProcess.endpoint, LOCAL_TABLE_NAME);

    // The poller starts below; no request is served before then (no await in between).
    let poller: Poller | undefined;
    let streamPoller: StreamPoller | undefined;
    let scheduler: Scheduler | undefined;
    const idleSources: IdleSources = {
      queues: async () => sqsServer.queueStates(),
      // A scheduled run (a heartbeat sweep) counts as a batch: what it writes is in the stream before it ends.
      // A relay batch counts while it runs (retries included); one that ended within the look has sent its
      // messages to the queues the look reads after it, or they were taken by a worker batch, which counts.
      activity: () =>
        combined(
          poller?.activity() ?? { running: 1, started: 0 },
          { running: streamPoller?.activity().running ?? 1, started: 0 },
          scheduler?.activity() ?? { running: 0, started: 0 },
        ),
      streamsCaughtUp: async () => streamPoller?.caughtUp(),
    };
    const apiServer = await startHttpServer({
      routes,
      fallback,
      root,
      port: options.apiPort ?? 3000,
      region,
      log: options.log,
      localEndpoints: async (path, query) => (path === `${LOCAL_PATH_PREFIX}idle` ? idleResponse(idleSources, query) : undefined),
    });
    started.push(apiServer);

    const key = masterKey(dataDir);
    started.push(key);
    const endpoints: LocalStackEndpoints = {
      api: apiServer.url,
      dynamodb: dynamodbProcess.endpoint,
      sqs: sqsServer.endpoint,
      ses: sesServer.endpoint,
      region,
      tableName: LOCAL_TABLE_NAME,
      queueUrls: sqsServer.queueUrls,
      masterKeyFile: key.file,
    };
    // Handler modules load on their first request or message; the API's port is only known
    // now (PUBLIC_URL), and no request can be served before this synchronous step completes.
    applyHandlerEnvironment(endpoints);

    poller = startPoller({
      workers: options.workers ?? workers,
      queueUrls: sqsServer.queueUrls,
      timeoutSeconds: workerTimeoutSeconds,
      root,
      sqsEndpoint: sqsServer.endpoint,
      region,
      log: options.log,
    });
    // Stopped first: no handler should start while the services it needs go away.
    started.push(poller);
    streamPoller = await startStreamPoller({
      workers: streamConsumers,
      dynamodbEndpoint: dynamodbProcess.endpoint,
      tableName: LOCAL_TABLE_NAME,
      region,
      root,
      sqsEndpoint: sqsServer.endpoint,
      failureQueueUrls: Object.fromEntries(
        streamConsumers.map((worker) => [worker.operation, sqsServer.queueUrl(failureQueueName(worker.operation))]),
      ),
      // With the data kept, where the relay stands is kept beside it, so a restart goes on from there.
      positionsFile: dataDir ? join(dataDir, 'stream-positions.json') : undefined,
      log: options.log,
    });
    started.push(streamPoller);
    scheduler = startScheduler({
      schedules: (options.schedules ?? schedules).map((schedule) => ({
        operation: schedule.operation,
        handler: schedule.handler,
        intervalSeconds: options.scheduleSeconds?.[schedule.operation] ?? schedule.everyMinutes * 60,
        timeoutSeconds: schedule.timeoutSeconds,
      })),
      root,
      region,
      log: options.log,
    });
    started.push(scheduler);

    return {
      ...endpoints,
      dynamodbProcess,
      sqsServer,
      sesServer,
      apiServer,
      waitUntilIdle: (timeoutMs) => waitUntilIdle(idleSources, timeoutMs),
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    await dynamodbStarting.then((dynamodb) => dynamodb.stop()).catch(() => undefined);
    throw error;
  }
}

const combined = (...activities: PollerActivity[]): PollerActivity => ({
  running: activities.reduce((sum, activity) => sum + activity.running, 0),
  started: activities.reduce((sum, activity) => sum + activity.started, 0),
});
