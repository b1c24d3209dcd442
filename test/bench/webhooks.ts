/**
 * Webhook delivery benchmark: starts its own in-memory local stack, points one endpoint at a
 * loopback receiver, makes N changes through the API (user creations, a few at a time) and
 * reports how many events per second reach the receiver and the delay from each change's
 * commit (its API answer) to its delivery, as a small markdown table.
 *
 *   npx tsx test/bench/webhooks.ts            # N = 200
 *   BENCH_EVENTS=500 BENCH_CONCURRENCY=20 npx tsx test/bench/webhooks.ts
 *
 * Traffic stays on this machine (127.0.0.1); the run stops by itself after a bounded time.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startLocalStack } from '#shared/local/stack.ts';

const N = Number(process.env.BENCH_EVENTS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const DEADLINE_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 180_000);

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// The handlers run in this process: keep their per-request log lines out of the report.
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';

const quiet = () => {};
const stack = await startLocalStack({ apiPort: 0, dynamodbPort: 0, sqsPort: 0, sesPort: 0, log: quiet });
const arrivals = new Map<string, number>();
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const at = performance.now();
    try {
      const document = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const payload = JSON.parse(document.data.attributes.payload);
      if (!arrivals.has(payload.data.id)) arrivals.set(payload.data.id, at);
    } catch {
      // not ours
    }
    response.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/bench`;

try {
  // Imported now: the store reads the table and endpoints the stack has just set.
  const { createAccount } = await import('#shared/domain/accounts/service.ts');
  const slug = `bench-${randomUUID().slice(0, 8)}`;
  const { account, token } = await createAccount({ slug, name: 'Bench', email: `admin@${slug}.example`, password: 'bench password' });
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${stack.api}/v1/accounts/${account.id}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text);
  };
  await call('POST', '/webhook-endpoints', { data: { type: 'webhook-endpoints', attributes: { url: receiverUrl, subscriptions: ['user.created'] } } });
  // One warm-up change, so that module loading is not measured.
  const warm = await call('POST', '/users', { data: { type: 'users', attributes: { email: `warm@${slug}.example` } } });
  const warmUntil = Date.now() + 30_000;
  while (!arrivals.has(warm.data.id) && Date.now() < warmUntil) await new Promise((r) => setTimeout(r, 20));
  arrivals.clear();

  // Idle: one change at a time, each awaited until delivered.
  const idle: number[] = [];
  for (let i = 0; i < 5; i++) {
    const reply = await call('POST', '/users', { data: { type: 'users', attributes: { email: `idle${i}@${slug}.example` } } });
    const at = performance.now();
    const until = Date.now() + 30_000;
    while (!arrivals.has(reply.data.id) && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    idle.push((arrivals.get(reply.data.id) ?? NaN) - at);
  }
  idle.sort((a, b) => a - b);
  arrivals.clear();

  const committed = new Map<string, number>();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < N) {
        const i = next++;
        const reply = await call('POST', '/users', { data: { type: 'users', attributes: { email: `u${i}@${slug}.example` } } });
        committed.set(reply.data.id, performance.now());
      }
    }),
  );
  const changesDone = performance.now();
  const deadline = Date.now() + DEADLINE_MS;
  while (arrivals.size < N && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));

  const delays = [...committed].filter(([id]) => arrivals.has(id)).map(([id, at]) => arrivals.get(id)! - at).sort((a, b) => a - b);
  const times = [...arrivals.values()].sort((a, b) => a - b);
  const quantile = (q: number) => (delays.length ? delays[Math.min(delays.length - 1, Math.floor(q * delays.length))]! : NaN);
  const seconds = (ms: number) => (ms / 1000).toFixed(2);
  const span = times.length > 1 ? times.at(-1)! - started : NaN;
  console.log(`\n### Webhook delivery, local stack (${N} user.created events, ${CONCURRENCY} concurrent changes)\n`);
  console.log('| metric | value |');
  console.log('|---|---|');
  console.log(`| events delivered | ${arrivals.size} of ${N} |`);
  console.log(`| changes per second (API) | ${(N / ((changesDone - started) / 1000)).toFixed(1)} |`);
  console.log(`| events delivered per second (first change → last delivery) | ${(arrivals.size / (span / 1000)).toFixed(1)} |`);
  console.log(`| delay change → delivery, idle (median of 5 lone changes) | ${seconds(idle[2]!)} s |`);
  console.log(`| delay change → delivery under load, median | ${seconds(quantile(0.5))} s |`);
  console.log(`| delay change → delivery under load, p95 | ${seconds(quantile(0.95))} s |`);
  console.log(`| delay change → delivery under load, max | ${seconds(delays.at(-1) ?? NaN)} s |`);
  if (arrivals.size < N) process.exitCode = 1;
} finally {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await stack.stop();
}
process.exit();
