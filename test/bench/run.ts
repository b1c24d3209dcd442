/**
 * `npm run bench`: starts an in-memory local stack in this process, runs every section (or
 * those named: `npm run bench -- purge`) and writes docs/benchmarks.md. Not part of
 * `npm test`: tests never assert timings.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Section } from './report.ts';

// Settings are read when the modules load, so they are made before anything else is imported.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
// Long runs: give DynamoDB Local the JVM's full compiler rather than the quick-start flags.
process.env.DYNAMODB_JAVA_OPTS ??= '-XX:+UseParallelGC';

const { REPOSITORY_ROOT, startLocalStack } = await import('#shared/local/stack.ts');
const { render } = await import('./report.ts');
const { purgeSection } = await import('./purge.ts');

/** `10000,100000` → [10000, 100000]: smaller runs while working on a section. */
const sizesFrom = (value: string | undefined) => value?.split(',').map(Number).filter((n) => n > 0);

const sections: [string, () => Promise<Section>][] = [
  ['purge', () => purgeSection(sizesFrom(process.env.BENCH_PURGE_SIZES) ?? [10_000, 100_000])],
];

const only = process.argv.slice(2);
const stack = await startLocalStack({ apiPort: 0, dynamodbPort: 0, sqsPort: 0, sesPort: 0 });
const results: Section[] = [];
try {
  for (const [name, run] of sections) {
    if (only.length && !only.includes(name)) continue;
    process.stdout.write(`bench: ${name}...\n`);
    results.push(await run());
  }
} finally {
  await stack.stop();
}
const file = join(REPOSITORY_ROOT, 'docs', 'benchmarks.md');
writeFileSync(file, render(results));
process.stdout.write(`bench: wrote ${file}\n`);
