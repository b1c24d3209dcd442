/**
 * Global setup: starts one in-memory local stack for the whole test run, exactly as
 * `npm start` would, and hands its endpoints to the tests (`inject('localStack')`).
 *
 * The stack's webhook worker resolves host names with a DNS responder started here on loopback
 * (WEBHOOK_DNS_SERVERS), whose answers are `rebindingNames` (dns-responder.ts): a test can name a
 * host that answers one address to the delivery's check and another to any later question.
 * Receivers named by IP address ask nothing.
 *
 * The stack's output goes to a log file (LOCAL_STACK_LOG, default .data/test-stack.log):
 * handler errors land there rather than in the test report.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import type { LocalStackEndpoints } from '#dev/local/stack.ts';
import { rebindingNames, startDnsResponder } from './dns-responder.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const READY_PREFIX = 'LOCAL_STACK_READY ';
const START_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 15_000;

/** Short timings so retries and redeliveries happen within a test's patience; limits out of reach. */
export const TEST_ENVIRONMENT = {
  PORT: '0',
  DYNAMODB_PORT: '0',
  SQS_PORT: '0',
  SES_PORT: '0',
  WEBHOOK_RETRY_DELAYS: '1,1,1',
  // A purge's or cascade's second pass a second after its first (30 s and 10 s deployed): within
  // the idle check's reach, so waiting for the stack to be idle waits for the whole work.
  SECOND_PASS_DELAY_SECONDS: '1',
  LOCAL_RETRY_VISIBILITY_SECONDS: '1',
  // Every test calls the unauthenticated routes from 127.0.0.1, in parallel files: out of reach.
  // address-limits.test.ts starts a server of its own with a small limit.
  RATE_LIMIT_PER_ADDRESS: '1000000',
  // A dead machine is culled within seconds of its deadline rather than within a minute.
  HEARTBEAT_SWEEP_SECONDS: '2',
  // The JVM's full compiler: a run keeps DynamoDB Local busy for minutes, long enough for C2 to
  // pay for itself (on six HTTP files, 18 % less wall time and 8 % less CPU than C1 alone, the
  // flags `npm start` keeps for a quick start: docs/testing.md).
  DYNAMODB_JAVA_OPTS: '-XX:+UseSerialGC -Xss512k',
};

function waitForReady(child: ChildProcess, output: () => string): Promise<LocalStackEndpoints> {
  return new Promise((resolveReady, reject) => {
    const fail = (reason: string) => {
      clearTimeout(timer);
      reject(new Error(`The local stack did not start: ${reason}\n--- its output ---\n${output()}`));
    };
    const timer = setTimeout(() => fail(`no ready line within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
    child.once('exit', (code, signal) => fail(`it exited (code ${code}, signal ${signal})`));
    child.once('error', (error) => fail(error.message));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith(READY_PREFIX)) return;
      clearTimeout(timer);
      resolveReady(JSON.parse(line.slice(READY_PREFIX.length)) as LocalStackEndpoints);
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const force = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(force);
      resolveStop();
    });
    child.kill('SIGTERM');
  });
}

/** The stack every project of the run shares: started by the first to set up, stopped by the last to tear down. */
interface Shared {
  started: Promise<{ endpoints: LocalStackEndpoints; stop: () => Promise<void> }>;
  users: number;
}
const SHARED = Symbol.for('licensing.test.localStack');
const holder = globalThis as typeof globalThis & { [SHARED]?: Shared };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The projects that need the stack (isolated or not) set up in one process: they share one stack.
  holder[SHARED] ??= { started: startStack(), users: 0 };
  const shared = holder[SHARED];
  shared.users += 1;
  const { endpoints, stop: stopStack } = await shared.started;
  project.provide('localStack', endpoints);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete holder[SHARED];
    await stopStack();
  };
}

async function startStack(): Promise<{ endpoints: LocalStackEndpoints; stop: () => Promise<void> }> {
  const logPath = resolve(ROOT, process.env.LOCAL_STACK_LOG || '.data/test-stack.log');
  mkdirSync(dirname(logPath), { recursive: true });
  const log = createWriteStream(logPath);
  let recent = '';
  const remember = (chunk: Buffer) => {
    log.write(chunk);
    recent = (recent + chunk.toString()).slice(-20_000);
  };

  const dns = await startDnsResponder(rebindingNames);
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/serve.ts', '--in-memory', '--no-seed', '--ready-json'], {
    cwd: ROOT,
    env: { ...process.env, ...TEST_ENVIRONMENT, WEBHOOK_DNS_SERVERS: dns.server },
    // If this process dies without tearing down, the stack notices its parent is gone and stops.
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', remember);
  child.stderr!.on('data', remember);
  const stopChild = async () => {
    await stop(child);
    await dns.close();
    log.end();
  };

  try {
    return { endpoints: await waitForReady(child, () => recent), stop: stopChild };
  } catch (error) {
    await stopChild();
    throw error;
  }
}
