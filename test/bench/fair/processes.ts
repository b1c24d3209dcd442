/**
 * The processes of a fair measurement: the API as `npm start` runs it, the bare server and the
 * load generator, each its own process, and what each spends of the CPU, read from /proc (user
 * and system time of the process, in clock ticks) so no process measures itself while measured.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadResult, LoadSpec } from './load.ts';

const HERE = new URL('.', import.meta.url).pathname;
const ROOT = join(HERE, '..', '..', '..');
/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** A child process started with tsx's loader in the same node (one process, one pid). */
function node(script: string, args: string[], env: Record<string, string>, nodeOptions: string[] = []): ChildProcess {
  return spawn(process.execPath, [...nodeOptions, '--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Node's options that write a CPU profile into `directory` when the process exits. */
const profiled = (directory?: string) => (directory ? ['--cpu-prof', `--cpu-prof-dir=${directory}`] : []);

/** Resolves with the first stdout line starting with `marker` (the rest of the line), rejects if the process ends first. */
function lineOf(child: ChildProcess, marker: string, timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`no ${marker} within ${timeoutMs} ms`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      for (const line of buffer.split('\n')) {
        if (line.startsWith(marker)) {
          clearTimeout(timer);
          child.stdout?.off('data', onData);
          resolve(line.slice(marker.length).trim());
          return;
        }
      }
      buffer = buffer.slice(buffer.lastIndexOf('\n') + 1);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', () => {});
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`process ended (${code}) before ${marker}`));
    });
  });
}

export interface ApiProcess {
  pid: number;
  /** The DynamoDB Local JVM the API started. */
  dynamodbPid: number;
  api: string;
  dynamodb: string;
  tableName: string;
  /** The demo admin's token. */
  token: string;
  stop(): Promise<void>;
}

/** `npm start` in memory with the demo account: the API as a user runs it, in its own process. */
export async function startApi(options: { cpuProfileDir?: string } = {}): Promise<ApiProcess> {
  const child = spawn(
    process.execPath,
    [...profiled(options.cpuProfileDir), '--import', 'tsx', 'bin/serve.ts', '--in-memory', '--ready-json'],
    {
      cwd: ROOT,
      // The per-address limit of unauthenticated routes (validate-key) would answer most of a load run with 429s.
      env: { ...process.env, PORT: '0', DYNAMODB_PORT: '0', SQS_PORT: '0', SES_PORT: '0', RATE_LIMIT_PER_ADDRESS: '1000000000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const token = lineOf(child, '  token');
  const endpoints = JSON.parse(await lineOf(child, 'LOCAL_STACK_READY')) as { api: string; dynamodb: string; tableName: string };
  // Drained, never read: what the API logs costs the API, not this process.
  child.stdout?.resume();
  const pid = child.pid ?? 0;
  return {
    pid,
    dynamodbPid: descendants(pid).find((candidate) => commandOf(candidate) === 'java') ?? 0,
    ...endpoints,
    token: await token,
    stop: () => stop(child, 'SIGTERM'),
  };
}

export interface BareProcess {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

/** The bare server (bare-server.ts) reading `key` from the API's DynamoDB Local. */
export async function startBare(
  api: ApiProcess,
  key: { PK: string; SK: string },
  options: { cpuProfileDir?: string } = {},
): Promise<BareProcess> {
  const child = node(
    join(HERE, 'bare-server.ts'),
    [],
    { BARE_DYNAMODB_ENDPOINT: api.dynamodb, BARE_TABLE: api.tableName, BARE_KEY: JSON.stringify(key) },
    profiled(options.cpuProfileDir),
  );
  const port = await lineOf(child, 'BARE_READY');
  return { pid: child.pid ?? 0, url: `http://127.0.0.1:${port}/`, stop: () => stop(child, 'SIGTERM') };
}

/** One load run in a process of its own (load.ts). */
export async function load(spec: LoadSpec): Promise<LoadResult> {
  const child = node(join(HERE, 'load.ts'), [], { LOAD_SPEC: JSON.stringify(spec) });
  return JSON.parse(await lineOf(child, 'LOAD_RESULT', (spec.seconds + 60) * 1000)) as LoadResult;
}

/** CPU seconds a process has spent so far (user + system), from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** Runs `run` and returns its result with the CPU seconds each of `pids` spent meanwhile. */
export async function withCpu<T>(pids: number[], run: () => Promise<T>): Promise<{ result: T; cpu: number[] }> {
  const before = pids.map(cpuSeconds);
  const result = await run();
  return { result, cpu: pids.map((pid, i) => cpuSeconds(pid) - (before[i] ?? 0)) };
}

function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** Every process below `root`. */
function descendants(root: number): number[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
  const below = (pid: number): boolean => {
    for (let current = parentOf(pid), depth = 0; current > 1 && depth < 10; current = parentOf(current), depth++) {
      if (current === root) return true;
    }
    return false;
  };
  return all.filter(below);
}

function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}
