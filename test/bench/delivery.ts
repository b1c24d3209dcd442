/**
 * Webhook delivery: endpoints of one account point at a loopback receiver; changes made through
 * the API (user creations, a few at a time) emit one event per endpoint; reported are the events
 * delivered per second and the delay from each change's commit (its API answer) to each of its
 * deliveries.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Measurement, Section } from './report.ts';
import { benchAccount, client, doc, fmt, must, type BenchContext } from './support.ts';

const ENDPOINTS = 10;
const CONCURRENCY = 10;
const DEADLINE_MS = 240_000;

export async function deliverySection(context: BenchContext, events = 5_000): Promise<Section> {
  const changes = Math.ceil(events / ENDPOINTS);
  /** First arrival per (endpoint path, changed user id). */
  const arrivals = new Map<string, number>();
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      try {
        const document = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const payload = JSON.parse(document.data.attributes.payload);
        const key = `${request.url}|${payload.data.id}`;
        if (!arrivals.has(key)) arrivals.set(key, at);
      } catch {
        // not an event
      }
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  try {
    const account = await benchAccount();
    const call = client(context.stack, account);
    for (let i = 0; i < ENDPOINTS; i++) {
      await must(call('POST', '/webhook-endpoints', doc('webhook-endpoints', { url: `${base}/hook${i}`, subscriptions: ['user.created'] })), 'endpoint');
    }
    const delivered = (userId: string) => Array.from({ length: ENDPOINTS }, (_, i) => arrivals.get(`/hook${i}|${userId}`));
    const waitFor = async (userId: string, ms: number) => {
      const until = Date.now() + ms;
      while (delivered(userId).some((at) => at === undefined) && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    };
    const create = async (i: number | string) => must(call('POST', '/users', doc('users', { email: `u${i}-${randomUUID().slice(0, 6)}@bench.example` })), 'user');

    // Warm-up: handler modules loaded, not measured.
    await waitFor((await create('warm')).id, 30_000);

    // Idle: one change at a time, each awaited until all its deliveries have arrived.
    const idle: number[] = [];
    for (let i = 0; i < 5; i++) {
      const user = await create(`idle${i}`);
      const at = performance.now();
      await waitFor(user.id, 30_000);
      idle.push(...delivered(user.id).map((t) => (t ?? NaN) - at));
    }
    arrivals.clear();

    const committed = new Map<string, number>();
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < changes) {
          const user = await create(next++);
          committed.set(user.id, performance.now());
        }
      }),
    );
    const changesDone = performance.now();
    const deadline = Date.now() + DEADLINE_MS;
    while (arrivals.size < changes * ENDPOINTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));

    const delays = [...committed].flatMap(([id, at]) => delivered(id).filter((t): t is number => t !== undefined).map((t) => t - at)).sort((a, b) => a - b);
    const q = (values: number[], p: number) => (values.length ? [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))]! : NaN);
    const last = Math.max(...arrivals.values());
    const rate = arrivals.size / ((last - started) / 1000);
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const total = changes * ENDPOINTS;
    const rows: Measurement[] = [
      { what: 'Events delivered', figure: `${fmt(arrivals.size)} of ${fmt(total)}`, budget: 'all', met: arrivals.size === total },
      { what: 'Changes per second through the API', figure: `${fmt(changes / ((changesDone - started) / 1000), 1)} (${fmt(changes)} user creations, ${CONCURRENCY} at a time)`, budget: 'context' },
      { what: 'Events delivered per second (first change → last delivery)', figure: `${fmt(rate, 1)}`, budget: 'context' },
      { what: 'Delay change → delivery, idle (median of 5 lone changes × endpoints)', figure: s(q(idle, 0.5)), budget: '≤ 1 s', met: q(idle, 0.5) <= 1000 },
      { what: 'Delay change → delivery under load, median', figure: s(q(delays, 0.5)), budget: '≤ 1 s', met: q(delays, 0.5) <= 1000 },
      { what: 'Delay change → delivery under load, p95 / max', figure: `${s(q(delays, 0.95))} / ${s(delays.at(-1) ?? NaN)}`, budget: 'context' },
    ];
    return {
      title: 'Webhook delivery',
      method: `${ENDPOINTS} enabled endpoints subscribed to \`user.created\`, all on a loopback receiver that answers 204; ${fmt(changes)} users created through the API, ${CONCURRENCY} requests at a time, so ${fmt(total)} events are written (one per endpoint, in each change's transaction) and queued after commit. The local poller calls the delivery worker with SQS batches of 10, as the event source mapping would. The delay runs from the API's answer to the change to the receiver's arrival of each event.`,
      rows,
      notes: [
        'The delay budget is met for a change made on an idle stack; it is not met in a burst of 5,000 events, and cannot be on this machine: the API writes events several times faster than the worker delivers them, so the queue backs up and the delay becomes the time to drain the backlog, not the time to deliver one event.',
        'The cause is delivery capacity: the local poller calls the delivery worker with one batch of 10 at a time (as one concurrent Lambda invocation would), and each event costs its delivery claim, its event and endpoint reads, the outcome write and the claim\'s completion in DynamoDB besides the POST. Letting each worker keep several batches in flight (as the event source mapping scales out) was tried: on this loaded 2-core machine it gave no gain, because DynamoDB Local was already using both cores, so it was not kept.',
        'What would meet it: on AWS, the event source mapping adds concurrent invocations as the backlog grows (maximum concurrency per queue), so delivery capacity scales with the write rate; locally, a poller with several batches in flight on a machine with spare cores. Per event, reading the event and its endpoint in one BatchGetItem, and writing the outcome and completing the claim in one transaction, would cut its DynamoDB requests by two.',
      ].join('\n'),
    };
  } finally {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}
