/**
 * The data directory of `npm start` (bin/serve.ts, DATA_DIR) holds license keys, webhook signing
 * secrets, password hashes and the master key: it is its owner's alone. The program is run as a
 * real process, under the usual umask 022, on a directory left loose by an earlier run: the
 * directory and every folder in it end 0700, every file 0600, DynamoDB Local's included.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

let dataDir: string;
let serve: ChildProcess;
let api: string;

/** Starts bin/serve.ts on DATA_DIR, any free ports, and resolves with its API once it is ready. */
function start(): Promise<string> {
  // Through a shell, to start it under the umask most machines have, whatever this process's.
  serve = spawn('sh', ['-c', 'umask 022 && exec "$0" --import tsx bin/serve.ts --ready-json', process.execPath], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      DYNAMODB_PORT: '0',
      SQS_PORT: '0',
      SES_PORT: '0',
      HEARTBEAT_SWEEP_SECONDS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolveReady, reject) => {
    serve.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /^LOCAL_STACK_READY (.*)$/m.exec(output)?.[1];
      if (ready) resolveReady((JSON.parse(ready) as { api: string }).api);
    });
    serve.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    serve.once('exit', (code) => reject(new Error(`the local stack exited (${code}) before it was ready:\n${output}`)));
  });
}

/** Every path under the directory, itself included, with its permission bits. */
function modes(directory: string): Record<string, string> {
  const found: Record<string, string> = { '.': (statSync(directory).mode & 0o777).toString(8) };
  for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    found[path.slice(directory.length + 1)] = (statSync(path).mode & 0o777).toString(8);
  }
  return found;
}

beforeAll(async () => {
  const parent = mkdtempSync(join(tmpdir(), 'licensing-data-'));
  dataDir = join(parent, 'data');
  // An earlier run's directory, as loose as the default umask made it.
  mkdirSync(join(dataDir, 'dynamodb'), { recursive: true });
  chmodSync(dataDir, 0o755);
  chmodSync(join(dataDir, 'dynamodb'), 0o755);
  writeFileSync(join(dataDir, 'stack.json'), '{}\n', { mode: 0o644 });
  api = await start();
  // The demo account is written, and its records relayed from the stream (stream-positions.json).
  const idle = await fetch(`${api}/_local/idle?timeout=60`);
  expect(idle.status).toBe(200);
});

afterAll(async () => {
  if (serve?.exitCode === null) {
    const exited = new Promise((resolveExit) => serve.once('exit', resolveExit));
    serve.kill('SIGTERM');
    await exited;
  }
  if (dataDir) rmSync(dirname(dataDir), { recursive: true, force: true });
});

describe('the data directory', () => {
  it('is its owner’s alone: itself and its folders 0700, every file 0600, those kept from before included', () => {
    const found = modes(dataDir);
    // What the stack keeps there: DynamoDB Local's file, the master key, where the relay stands, the endpoints.
    expect(Object.keys(found)).toEqual(
      expect.arrayContaining(['.', 'dynamodb', 'dynamodb/shared-local-instance.db', 'master.key', 'stack.json', 'stream-positions.json']),
    );
    const expected = Object.fromEntries(
      Object.keys(found).map((path) => [path, statSync(join(dataDir, path)).isDirectory() ? '700' : '600']),
    );
    expect(found).toEqual(expected);
  });
});
