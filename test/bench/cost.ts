/**
 * What each operation costs on AWS: the DynamoDB requests and capacity units it uses (as the
 * round-trip section counts them), the webhook events it writes with one endpoint subscribed to
 * everything, and its duration through the in-process API, priced with AWS's public on-demand
 * prices (written next to the table).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Measurement, Section } from './report.ts';
import { type Probe, probe } from './round-trips.ts';
import { type BenchContext, benchAccount, client, doc, fmt, installMeter, licensingGraph, median, must } from './support.ts';

const RUNS = 5;

/** One operation's figures, as a run saves them (`BENCH_COST_SAVE=<file>`) to be compared with later. */
interface OperationCost {
  requests: number;
  rcu: number;
  wcu: number;
  events: number;
  ms: number;
  total: number;
}

/**
 * The figures this section gave before the collection indexes held small entries (commit
 * 0e1352e, measured with this very section and meter, `BENCH_COST_SAVE`), shown beside today's.
 */
const BASELINE = new URL('./cost-before.json', import.meta.url);

function baseline(): { ran: string; operations: Record<string, OperationCost> } | undefined {
  return existsSync(BASELINE) ? JSON.parse(readFileSync(BASELINE, 'utf8')) : undefined;
}

/** US East (N. Virginia) on-demand prices, USD. */
export const PRICES = {
  /** Lambda, arm64: per GB-second, and per request. */
  lambdaGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  /** The function's memory, GB. */
  lambdaMemoryGb: 1,
  /** API Gateway HTTP API, per request (first 300 million a month). */
  httpApiRequest: 1 / 1e6,
  /** DynamoDB on-demand, per read and per write request unit. */
  readUnit: 0.125 / 1e6,
  writeUnit: 0.625 / 1e6,
  /** SQS standard, per request; a webhook event is sent, received and deleted: three. */
  sqsRequest: 0.4 / 1e6,
  sqsRequestsPerEvent: 3,
};

/** The price of one million requests of an operation, by service. */
export function pricePerMillion(tally: Probe['tally'], ms: number) {
  const lambda = PRICES.lambdaRequest + PRICES.lambdaMemoryGb * (Math.ceil(ms) / 1000) * PRICES.lambdaGbSecond;
  const dynamodb = tally.rcu * PRICES.readUnit + tally.wcu * PRICES.writeUnit;
  const sqs = tally.events * PRICES.sqsRequestsPerEvent * PRICES.sqsRequest;
  const million = (usd: number) => usd * 1e6;
  return {
    lambda: million(lambda),
    api: million(PRICES.httpApiRequest),
    dynamodb: million(dynamodb),
    sqs: million(sqs),
    total: million(lambda + PRICES.httpApiRequest + dynamodb + sqs),
  };
}

export async function costSection(context: BenchContext): Promise<Section> {
  installMeter();
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  try {
    const account = await benchAccount();
    const call = client(context.stack, account);
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await must(call('POST', '/webhook-endpoints', doc('webhook-endpoints', { url, subscriptions: ['*'] })), 'endpoint');
    const graph = await licensingGraph(call);
    // Warm-up: every module loaded, nothing counted.
    // Deliveries run in this process too: each request is measured once the last one's are done.
    const settle = () => context.stack.waitUntilIdle(30_000);
    await probe(call, graph, settle);
    // Units once, billed by AWS's rules; times from runs without the meter's own reads.
    const billed = await probe(call, graph, settle, true);
    const runs: Probe[][] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await probe(call, graph, settle));
    const figures: Record<string, OperationCost> = {};
    const before = baseline();
    const rows: Measurement[] = billed.map((first, i) => {
      const ms = median(runs.map((run) => run[i]?.ms ?? Number.NaN));
      const { tally } = first;
      const price = pricePerMillion(tally, ms);
      figures[first.operation] = { requests: tally.requests, rcu: tally.rcu, wcu: tally.wcu, events: tally.events, ms, total: price.total };
      const was = before?.operations[first.operation];
      // The target: a create or an update writes at most a third of the units it wrote before.
      const bounded = was && (first.kind === 'create' || first.kind === 'update');
      return {
        what: first.operation,
        figure: `${tally.requests} requests, ${fmt(tally.rcu, 1)} RCU, ${fmt(tally.wcu, 1)} WCU, ${tally.events} events, ${fmt(ms, 1)} ms → **$${fmt(price.total, 2)}** per million (Lambda ${fmt(price.lambda, 2)}, HTTP API ${fmt(price.api, 2)}, DynamoDB ${fmt(price.dynamodb, 2)}, SQS ${fmt(price.sqs, 2)})${was ? `; before: ${fmt(was.wcu, 1)} WCU, ${fmt(was.rcu, 1)} RCU, $${fmt(was.total, 2)} (WCU × ${fmt(tally.wcu / was.wcu, 2)}, $ × ${fmt(price.total / was.total, 2)})` : ''}`,
        budget: bounded ? `≤ ${fmt(was.wcu / 3, 1)} WCU (a third of before)` : '',
        ...(bounded ? { met: tally.wcu <= was.wcu / 3 } : {}),
      };
    });
    if (process.env.BENCH_COST_SAVE) {
      writeFileSync(process.env.BENCH_COST_SAVE, `${JSON.stringify({ ran: new Date().toISOString(), operations: figures }, null, 2)}\n`);
    }
    return {
      title: 'What each operation costs on AWS',
      method: `Each operation of the round-trip section, ${RUNS} times through the in-process API as the account's admin, with one webhook endpoint subscribed to every event (so each change writes its event and one SQS message): DynamoDB requests, read units as DynamoDB Local reports them and write units as AWS bills them (computed from each written item's size before and after, by the rules in test/bench/capacity.ts, since DynamoDB Local's report is wrong for transactions; checked against DynamoDB Local's report for single writes by test/store/capacity-model.test.ts), events written, and the median wall time of the request, taken as the Lambda's billed duration (rounded up to the millisecond). Prices, US East (N. Virginia), on demand: Lambda arm64 $${PRICES.lambdaGbSecond} per GB-s at ${PRICES.lambdaMemoryGb * 1024} MB and $0.20 per million requests; API Gateway HTTP API $1.00 per million requests; DynamoDB $0.125 per million read and $0.625 per million write request units; SQS $0.40 per million requests, ${PRICES.sqsRequestsPerEvent} per event (send, receive, delete).`,
      rows,
      notes: [
        'Not counted: the webhook worker\u2019s own Lambda time and its DynamoDB writes per delivery (one invocation per batch of up to 10 events), CloudWatch Logs ingestion ($0.50 per GB) and data transfer. The duration measured here is local (DynamoDB Local on loopback, two cores shared with the load), usually longer than a warm Lambda\u2019s against DynamoDB in its region, so the Lambda figure errs high.',
      ].join('\n'),
    };
  } finally {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}
