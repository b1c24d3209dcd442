/**
 * `npm run fuzz`: starts the local stack as the tests do (test/support/local-stack-setup.ts: an
 * in-memory stack in a child process, its webhook hosts resolved by a DNS responder on loopback),
 * builds the fixtures, sends the seeded requests, checks the invariants and prints the report.
 *
 *   npm run fuzz -- [--requests 5000] [--seed S] [--concurrency 4] [--only 12,345] [--links 1500] [--verbose] [--trace]
 *
 * The seed is printed first and with every failure; the same seed and count send the same
 * requests (`--concurrency 1` also sends them in the same order). Exits 1 on any failure.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { LocalStackEndpoints } from '#dev/local/stack.ts';
import { rebindingNames, startDnsResponder } from '../support/dns-responder.ts';
import { TEST_ENVIRONMENT } from '../support/local-stack-setup.ts';
import { pointSdkAt } from '../support/sdk-environment.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const READY_PREFIX = 'LOCAL_STACK_READY ';
const LOG_PATH = resolve(ROOT, process.env.FUZZ_STACK_LOG || '.data/fuzz-stack.log');

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

function wholeNumber(name: string, fallback: number): number {
  const raw = option(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${name} must be a whole number, got "${raw}"`);
  return value;
}

const seed = wholeNumber('seed', Math.floor(Math.random() * 2 ** 31));
const requests = wholeNumber('requests', 5_000);
const concurrency = Math.max(1, wholeNumber('concurrency', 4));
const linkBudget = wholeNumber('links', 1_500);
const only = option('only')
  ?.split(',')
  .map(Number)
  .filter((index) => Number.isSafeInteger(index));

console.log(`fuzz: seed ${seed}, ${requests} requests${only ? ` (only ${only.join(', ')})` : ''}, ${concurrency} at once`);

function startStack(dnsServer: string): Promise<{ child: ChildProcess; endpoints: LocalStackEndpoints }> {
  mkdirSync(dirname(LOG_PATH), { recursive: true });
  const log = createWriteStream(LOG_PATH);
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/serve.ts', '--in-memory', '--no-seed', '--ready-json'], {
    cwd: ROOT,
    env: { ...process.env, ...TEST_ENVIRONMENT, WEBHOOK_DNS_SERVERS: dnsServer },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  return new Promise((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`the local stack did not start within 90 s; see ${LOG_PATH}`)), 90_000);
    child.once('exit', (code) => reject(new Error(`the local stack exited (code ${code}); see ${LOG_PATH}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith(READY_PREFIX)) return;
      clearTimeout(timer);
      resolveReady({ child, endpoints: JSON.parse(line.slice(READY_PREFIX.length)) as LocalStackEndpoints });
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolveStop();
    });
    child.kill('SIGTERM');
  });
}

const dns = await startDnsResponder(rebindingNames);
const { child, endpoints } = await startStack(dns.server);
let exitCode = 1;
try {
  pointSdkAt(endpoints);
  // Loaded once the SDK's variables point at the stack: the store reads them as it loads.
  const { startReceiver } = await import('../support/receiver.ts');
  const { buildWorld } = await import('./world.ts');
  const { fuzz } = await import('./engine.ts');
  const { causesFromLog, formatReport } = await import('./report.ts');
  const { ROUTES } = await import('./description.ts');
  const receiver = await startReceiver();
  const world = await buildWorld(endpoints.api, receiver.url);
  console.log(`fuzz: fixtures ready (account ${world.account.id}); sending`);
  const report = await fuzz({
    world,
    seed,
    requests,
    concurrency,
    only,
    linkBudget,
    alive: () => child.exitCode === null && child.signalCode === null,
    progress: (line) => console.log(`fuzz: ${line}`),
    trace: process.argv.includes('--trace') ? (line) => console.log(line) : undefined,
  });
  await receiver.close();
  console.log(`\n${formatReport(report, causesFromLog(readFileSync(LOG_PATH, 'utf8')), ROUTES.length)}`);
  if (process.argv.includes('--verbose')) {
    console.log('\nStatuses of the requests without mutation, by operation:');
    for (const [operation, statuses] of Object.entries(report.validStatuses).sort())
      console.log(`  ${operation}: ${JSON.stringify(statuses)}`);
  }
  console.log(`\nfuzz: seed ${seed}; the stack's log is ${LOG_PATH}`);
  exitCode = report.failures.length === 0 ? 0 : 1;
} finally {
  await stop(child);
  await dns.close();
}
process.exit(exitCode);
