/**
 * `npm run bench`: starts an in-memory local stack in this process, runs every section (or
 * those named: `npm run bench -- purge`) and writes docs/benchmarks.md. Not part of
 * `npm test`: tests never assert timings.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { Section } from './report.ts';

// Settings are read when the modules load, so they are made before anything else is imported.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
// Long runs: give DynamoDB Local the JVM's full compiler rather than the quick-start flags.
process.env.DYNAMODB_JAVA_OPTS ??= '-XX:+UseParallelGC';

const { REPOSITORY_ROOT, startLocalStack } = await import('#dev/local/stack.ts');
const { ranNow, render, sectionLines } = await import('./report.ts');
const { purgeSection } = await import('./purge.ts');
const { roundTripsSection } = await import('./round-trips.ts');
const { throughputSection } = await import('./throughput.ts');
const { profileSection } = await import('./profile.ts');
const { costSection } = await import('./cost.ts');
const { signingSection } = await import('./signing.ts');
const { coldStartSection } = await import('./cold-start.ts');
const { deepPagesSection } = await import('./deep-pages.ts');
const { deliverySection } = await import('./delivery.ts');
const { sweeperSection } = await import('./sweeper.ts');
const { cascadeSection } = await import('./cascade.ts');
const { schedules } = await import('#shared/routes.ts');

/** `10000,100000` → [10000, 100000]: smaller runs while working on a section. */
const sizesFrom = (value: string | undefined) =>
  value
    ?.split(',')
    .map(Number)
    .filter((n) => n > 0);

type Context = import('./support.ts').BenchContext;
const sections: [string, (context: Context) => Promise<Section>][] = [
  ['round-trips', (context) => roundTripsSection(context, sizesFrom(process.env.BENCH_ROUND_TRIP_SIZES) ?? [1_000, 50_000])],
  ['throughput', () => throughputSection()],
  ['profile', () => profileSection()],
  ['cost', (context) => costSection(context)],
  ['signing', (context) => signingSection(context)],
  ['cold-start', (context) => coldStartSection(context)],
  ['deep-pages', (context) => deepPagesSection(context)],
  ['purge', () => purgeSection(sizesFrom(process.env.BENCH_PURGE_SIZES) ?? [10_000, 100_000])],
  ['delivery', (context) => deliverySection(context, Number(process.env.BENCH_EVENTS ?? 5_000))],
  ['sweeper', (context) => sweeperSection(context, sizesFrom(process.env.BENCH_SWEEPER_SIZES) ?? [1_000, 10_000])],
  ['cascade', (context) => cascadeSection(context, sizesFrom(process.env.BENCH_CASCADE_SIZES) ?? [10_000])],
];

const only = process.argv.slice(2);
const unknown = only.filter((name) => !sections.some(([known]) => known === name));
if (unknown.length) {
  process.stderr.write(`bench: unknown section(s) ${unknown.join(', ')}; known: ${sections.map(([name]) => name).join(', ')}\n`);
  process.exit(2);
}
const started = performance.now();
// No schedule runs on its own: a section calls what it measures (the heartbeat sweeper's cursor is the section's).
const scheduleSeconds = Object.fromEntries(schedules.map((schedule) => [schedule.operation, 0]));
const stack = await startLocalStack({ apiPort: 0, dynamodbPort: 0, sqsPort: 0, sesPort: 0, scheduleSeconds, log: () => {} });
// Before any request: the store's plain client resolves its middleware once, at its first request.
(await import('./support.ts')).installMeter();
const results = new Map<string, Section>();
try {
  for (const [name, run] of sections) {
    if (only.length && !only.includes(name)) continue;
    const load = loadavg()[0]!;
    const sectionStarted = performance.now();
    process.stdout.write(`bench: ${name} (load average ${load.toFixed(2)})...\n`);
    const section = await run({ stack });
    const seconds = (performance.now() - sectionStarted) / 1000;
    section.load = load;
    section.seconds = seconds;
    section.ran = ranNow();
    results.set(name, section);
    process.stdout.write(`bench: ${name} done in ${seconds.toFixed(1)} s\n\n${sectionLines(section).join('\n')}\n`);
  }
} finally {
  await stack.stop();
}
// A run of some sections keeps the other sections' last figures (docs/benchmarks.json), so the
// report always has every section; the header's total time is that of a full run only.
const file = join(REPOSITORY_ROOT, 'docs', 'benchmarks.md');
const data = join(REPOSITORY_ROOT, 'docs', 'benchmarks.json');
const previous: { sections: Record<string, Section>; totalSeconds?: number } =
  only.length && existsSync(data) ? JSON.parse(readFileSync(data, 'utf8')) : { sections: {} };
const merged = Object.fromEntries(
  sections.map(([name]) => [name, results.get(name) ?? previous.sections[name]]).filter(([, section]) => section !== undefined),
) as Record<string, Section>;
const totalSeconds = only.length ? previous.totalSeconds : (performance.now() - started) / 1000;
writeFileSync(data, `${JSON.stringify({ sections: merged, totalSeconds }, null, 2)}\n`);
writeFileSync(file, render(Object.values(merged), { totalSeconds, measured: only.length ? [...results.keys()] : undefined }));
process.stdout.write(`bench: wrote ${file} in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
process.exit(0);
