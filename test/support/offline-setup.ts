/**
 * Global setup of the `fast` project (vitest.config.ts): a master key for sealing, in a private
 * temporary directory made once for the run and removed after it; offline-environment.ts points
 * every worker at it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    offlineMasterKeyFile: string;
  }
}

export default function setup(project: TestProject): () => void {
  const directory = mkdtempSync(join(tmpdir(), 'licensing-fast-'));
  const masterKeyFile = join(directory, 'master.key');
  writeFileSync(masterKeyFile, randomBytes(32), { mode: 0o600 });
  project.provide('offlineMasterKeyFile', masterKeyFile);
  return () => rmSync(directory, { recursive: true, force: true });
}
