/**
 * `npm run test:under-load [-- --runs N]`: runs `npm test` N times in a row (3 by default) while
 * a busy loop in a process of its own takes one core the whole time, as other work on a shared
 * machine would, then prints each run's outcome and wall time. It exits non-zero if any run
 * failed: a suite whose outcome depends on how busy the machine is fails here.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number ≥ 1, not ${values.runs}`);

/** One core kept busy until stopped. */
function startHog(): ChildProcess {
  return spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
}

function npmTest(): Promise<number> {
  return new Promise((resolveRun) => {
    const child = spawn('npm', ['test'], { stdio: 'inherit' });
    child.once('exit', (code, signal) => resolveRun(code ?? (signal ? 128 : 1)));
  });
}

const hog = startHog();
const stopHog = () => hog.kill('SIGKILL');
process.once('exit', stopHog);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopHog();
    process.exit(130);
  });
}

const outcomes: { run: number; code: number; seconds: number }[] = [];
for (let run = 1; run <= runs; run++) {
  process.stdout.write(`\n=== npm test under load: run ${run} of ${runs} (a busy loop holds one core) ===\n`);
  const started = Date.now();
  const code = await npmTest();
  outcomes.push({ run, code, seconds: Math.round((Date.now() - started) / 1000) });
}
stopHog();

process.stdout.write('\nnpm test under load\n');
for (const { run, code, seconds } of outcomes) {
  process.stdout.write(`  run ${run}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds} s\n`);
}
process.exitCode = outcomes.every(({ code }) => code === 0) ? 0 : 1;
