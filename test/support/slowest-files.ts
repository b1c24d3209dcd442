/**
 * A reporter that prints, at the end of every run, the slowest test files and how long each
 * took (import, set-up hooks and tests), so a file that grows slow is seen the day it does.
 * Listed in vitest.config.ts beside the default reporter.
 */
import type { Reporter, TestModule } from 'vitest/node';

const SHOWN = 15;

export default class SlowestFiles implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const timed = testModules
      .map((module) => {
        const { collectDuration, setupDuration, duration } = module.diagnostic();
        return { file: module.relativeModuleId, ms: collectDuration + setupDuration + duration };
      })
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SHOWN);
    if (timed.length === 0) return;
    const width = Math.max(...timed.map(({ file }) => file.length));
    const lines = timed.map(({ file, ms }) => `  ${file.padEnd(width)}  ${(ms / 1000).toFixed(1).padStart(6)} s`);
    process.stdout.write(`\nSlowest ${timed.length} files\n${lines.join('\n')}\n`);
  }
}
