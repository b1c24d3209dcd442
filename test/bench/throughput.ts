/**
 * Throughput against the bare limit, measured fairly: the API runs as `npm start` runs it, in a
 * process of its own; the bare limit is a plain node:http server answering each request with one
 * GetItem against the same DynamoDB Local, in a process of its own; the load generator
 * (autocannon) runs in a third (fair/processes.ts). For each case, bare and API runs alternate
 * (bare, API, bare, API, ...), so a drift of the machine's load touches both sides alike; the
 * ratio is reported per pair and as the median of the pairs. Each process's CPU time is read
 * from /proc around each run, so the report shows where a request's time goes: the API's
 * process, DynamoDB Local's JVM, or the bare server's process.
 */
import type { LocalStack } from '#dev/local/stack.ts';
import { recordKey } from '#shared/store/keys.ts';
import { type DynamoDbCost, dynamoDbCosts } from './fair/dynamodb-cost.ts';
import type { LoadResult, LoadSpec } from './fair/load.ts';
import { type ApiProcess, type BareProcess, load, startApi, startBare, withCpu } from './fair/processes.ts';
import type { Measurement, Section } from './report.ts';
import { client, componentBody, fmt, licensingGraph, median, must } from './support.ts';

const SECONDS = Number(process.env.BENCH_DURATION_SECONDS ?? 10);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);
const CONNECTIONS = 10;

const VALIDATE = 'Validate a license key with 3 components';

/**
 * Why validate-key reaches what it reaches, from this run's figures: its CPU per request across
 * the API and DynamoDB Local against the bare server's, and what DynamoDB Local charges for each
 * of its two requests.
 */
function whereTimeGoes(measured: Map<string, Figures>, costs: DynamoDbCost[]): string {
  const validate = measured.get(VALIDATE);
  const cost = (prefix: string) => costs.find((c) => c.kind.startsWith(prefix))?.jvmMs ?? 0;
  if (!validate) return '';
  const total = validate.apiCpu + validate.apiDynamo;
  const bare = validate.bareCpu + validate.bareDynamo;
  return [
    "**Where a case's time goes.** The API's process, DynamoDB Local's JVM and autocannon share two cores, so a case's ceiling is about the cores over the CPU a request costs across the processes.",
    `validate-key costs ${fmt(validate.apiCpu, 2)} ms of the API's CPU and ${fmt(validate.apiDynamo, 2)} ms of DynamoDB Local's per request, ${fmt(total / bare, 1)} × the bare server's ${fmt(bare, 2)} ms. With no webhook endpoint listening it writes nothing (data model, pattern 54; the address's limit is counted by the container, pattern 20), and it reads in one DynamoDB request: the BatchGetItem of what the pipeline reads first (the account, which carries the register of removals under way, and the key's marker) carries, for a key the container validated with the same scope before (as here, and as an installed copy validates), the 8 or so items its marker names (the license, its policy, its owner, the machine's marker, the components' device counts), read in a second BatchGetItem the first time. DynamoDB Local prices a BatchGetItem of 8 items at about ${fmt(cost('BatchGetItem, 8'), 2)} ms against ${fmt(cost('GetItem'), 2)} ms for the bare server's GetItem (rows above). Deployed, DynamoDB's CPU is not the function's: the Lambda's own CPU per validation is the API figure alone.`,
  ].join('\n\n');
}

interface Case {
  name: string;
  spec: Omit<LoadSpec, 'connections' | 'seconds'>;
  /** The share of the bare server's req/s the case must reach (undefined: no such budget). */
  ratioBudget?: number;
  /** At most this many times the bare server's CPU per request in the API's process. */
  cpuBudget?: number;
  /** The case this one repeats with the account named by its slug: run alternately with that one, it must cost within 10 % of it. */
  bySlugOf?: string;
}

/** One run of one side: its load result and the CPU milliseconds per request of each process. */
interface Run {
  load: LoadResult;
  /** CPU ms per request: the side's own process (the API's, or the bare server's), and DynamoDB Local's. */
  ownCpu: number;
  dynamodbCpu: number;
}

async function run(spec: LoadSpec, ownPid: number, dynamodbPid: number): Promise<Run> {
  const { result, cpu } = await withCpu([ownPid, dynamodbPid], () => load(spec));
  const per = (seconds: number | undefined) => ((seconds ?? 0) * 1000) / Math.max(result.requests, 1);
  return { load: result, ownCpu: per(cpu[0]), dynamodbCpu: per(cpu[1]) };
}

export async function throughputSection(): Promise<Section> {
  const api = await startApi();
  let bare: BareProcess | undefined;
  try {
    const { cases, componentKey } = await seedCases(api);
    bare = await startBare(api, componentKey);
    const bareSpec: LoadSpec = { url: bare.url, connections: CONNECTIONS, seconds: SECONDS };
    // Warm-up: JIT, connections and the handler modules, none of it measured.
    await load({ ...bareSpec, seconds: 2 });
    for (const c of cases) await load({ ...c.spec, connections: CONNECTIONS, seconds: 2 });

    const rows: Measurement[] = [];
    const pairLines: string[] = [];
    const measured = new Map<string, Figures>();
    for (const c of cases) {
      const byId = cases.find((other) => other.name === c.bySlugOf);
      if (byId) {
        // Against the same case by id, alternated with it: the bare server's own drift stays out of the comparison.
        const pairs: { id: Run; slug: Run }[] = [];
        for (let i = 0; i < PAIRS; i++) {
          const id = await run({ ...byId.spec, connections: CONNECTIONS, seconds: SECONDS }, api.pid, api.dynamodbPid);
          const slug = await run({ ...c.spec, connections: CONNECTIONS, seconds: SECONDS }, api.pid, api.dynamodbPid);
          pairs.push({ id, slug });
        }
        rows.push(slugRow(c, pairs));
        pairLines.push(
          `- ${c.name} (by slug / by id): ${pairs.map((p) => `${fmt(p.slug.load.rps)}/${fmt(p.id.load.rps)} = ${fmt(p.slug.load.rps / p.id.load.rps, 2)}`).join('; ')}`,
        );
        continue;
      }
      const pairs: { bare: Run; api: Run }[] = [];
      for (let i = 0; i < PAIRS; i++) {
        const bareRun = await run(bareSpec, bare.pid, api.dynamodbPid);
        const apiRun = await run({ ...c.spec, connections: CONNECTIONS, seconds: SECONDS }, api.pid, api.dynamodbPid);
        pairs.push({ bare: bareRun, api: apiRun });
      }
      measured.set(c.name, figuresOf(pairs));
      rows.push(...caseRows(c, pairs));
      pairLines.push(
        `- ${c.name}: ${pairs.map((p) => `${fmt(p.api.load.rps)}/${fmt(p.bare.load.rps)} = ${fmt(p.api.load.rps / p.bare.load.rps, 2)}`).join('; ')}`,
      );
    }
    // What DynamoDB Local spends per kind of request, to tell what a case's reads and writes cost it.
    const costs = await dynamoDbCosts(api.dynamodb, api.tableName, api.dynamodbPid);
    rows.push(
      ...costs.map((cost) => ({ what: `DynamoDB Local's CPU per request: ${cost.kind}`, figure: `${fmt(cost.jvmMs, 2)} ms`, budget: '' })),
    );
    return {
      title: 'Throughput against the bare limit',
      method: `Three processes: the API as \`npm start\` runs it (in memory, its own DynamoDB Local), the bare server (node:http answering each request with one consistent GetItem of the same component from that DynamoDB Local) and autocannon (${CONNECTIONS} connections, ${SECONDS} s per run, after 2 s warm-ups), each a process of its own. Per case, ${PAIRS} pairs of runs alternate bare, API, bare, API…; the ratio is the API's req/s over the bare server's in the same pair, and the figure is the median of the pairs. CPU per request is read from /proc (user + system time) of the API's process, of the bare server's and of DynamoDB Local's JVM around each run, divided by the requests answered. validate-key carries no bearer; the other cases run as the account's admin. A case naming the account by its slug (as the README's calls and most clients do) runs alternately with the same case by id instead of the bare server, and is reported as a share of it.`,
      rows,
      notes: ['Pairs (API req/s / bare req/s = ratio):', '', ...pairLines, '', whereTimeGoes(measured, costs)].join('\n'),
    };
  } finally {
    await bare?.stop();
    await api.stop();
  }
}

/** A case's medians over its pairs. */
interface Figures {
  ratio: number;
  apiCpu: number;
  bareCpu: number;
  apiDynamo: number;
  bareDynamo: number;
}

function figuresOf(pairs: { bare: Run; api: Run }[]): Figures {
  return {
    ratio: median(pairs.map((p) => p.api.load.rps / p.bare.load.rps)),
    apiCpu: median(pairs.map((p) => p.api.ownCpu)),
    bareCpu: median(pairs.map((p) => p.bare.ownCpu)),
    apiDynamo: median(pairs.map((p) => p.api.dynamodbCpu)),
    bareDynamo: median(pairs.map((p) => p.bare.dynamodbCpu)),
  };
}

/** A case by slug against the same case by id, run alternately: its req/s and its API CPU per request, each a share of by id's. */
function slugRow(c: Case, pairs: { id: Run; slug: Run }[]): Measurement {
  const rate = median(pairs.map((p) => p.slug.load.rps / p.id.load.rps));
  const cpu = median(pairs.map((p) => p.slug.ownCpu / p.id.ownCpu));
  const failed = pairs.reduce((sum, p) => sum + p.id.load.failed + p.slug.load.failed, 0);
  return {
    what: `${c.name}: against the account by id (alternated)`,
    figure: `req/s ${fmt(rate, 2)} × by id (${fmt(median(pairs.map((p) => p.slug.load.rps)))} against ${fmt(median(pairs.map((p) => p.id.load.rps)))}), API CPU per request ${fmt(cpu, 2)} × by id (${fmt(median(pairs.map((p) => p.slug.ownCpu)), 2)} ms)${failed ? `, ${fmt(failed)} failed` : ''}`,
    budget: 'within 10 % of by id',
    met: rate >= 0.9 && cpu <= 1.1 && failed === 0,
  };
}

/** The report's rows for one case: the throughput ratio, the API's CPU per request, the latency spread. */
function caseRows(c: Case, pairs: { bare: Run; api: Run }[]): Measurement[] {
  const { ratio, apiCpu, bareCpu, apiDynamo, bareDynamo } = figuresOf(pairs);
  const p50 = median(pairs.map((p) => p.api.load.p50));
  const p99 = median(pairs.map((p) => p.api.load.p99));
  const failed = pairs.reduce((sum, p) => sum + p.api.load.failed + p.bare.load.failed, 0);
  const rps = median(pairs.map((p) => p.api.load.rps));
  const bareRps = median(pairs.map((p) => p.bare.load.rps));
  return [
    {
      what: `${c.name}: req/s against the bare server`,
      figure: `${fmt(ratio, 2)} × (API ${fmt(rps)} req/s, bare ${fmt(bareRps)} req/s)${failed ? `, ${fmt(failed)} failed` : ''}`,
      budget: c.ratioBudget === undefined ? '' : `≥ ${c.ratioBudget} × bare`,
      met: c.ratioBudget === undefined ? undefined : ratio >= c.ratioBudget && failed === 0,
    },
    {
      what: `${c.name}: CPU per request`,
      figure: `API process ${fmt(apiCpu, 2)} ms (${fmt(apiCpu / bareCpu, 2)} × the bare server's ${fmt(bareCpu, 2)} ms); DynamoDB Local ${fmt(apiDynamo, 2)} ms (bare: ${fmt(bareDynamo, 2)} ms)`,
      budget: c.cpuBudget === undefined ? '' : `API ≤ ${c.cpuBudget} × bare`,
      met: c.cpuBudget === undefined ? undefined : apiCpu <= c.cpuBudget * bareCpu,
    },
    {
      what: `${c.name}: latency`,
      figure: `p50 ${p50} ms, p99 ${p99} ms`,
      budget: 'p99 ≤ 5 × p50',
      met: p99 <= 5 * Math.max(p50, 1),
    },
  ];
}

/** The demo account's licensing graph with three components, and a GET of one of them. */
export async function demoGraph(api: ApiProcess) {
  const accountReply = await fetch(`${api.api}/v1/accounts/demo`, {
    headers: { authorization: `Bearer ${api.token}`, accept: 'application/vnd.api+json' },
  });
  const accountId = ((await accountReply.json()) as { data: { id: string } }).data.id;
  const call = client({ api: api.api } as LocalStack, { id: accountId, slug: 'demo', token: api.token, adminId: '' });
  const graph = await licensingGraph(call);
  const parts = ['a', 'b', 'c'].map((p) => `${p}-${graph.machine.id}`);
  const components: { id: string }[] = [];
  for (const part of parts) components.push(await must(call('POST', '/components', componentBody(graph.machine.id, part)), 'component'));
  const component = components[0] as { id: string };
  const base = `${api.api}/v1/accounts/${accountId}`;
  const admin = { authorization: `Bearer ${api.token}`, accept: 'application/vnd.api+json' };
  const get = { url: `${base}/components/${component.id}`, headers: admin };
  // The README's calls, and most clients, name the account by its slug.
  const bySlug = `${api.api}/v1/accounts/demo`;
  return { accountId, graph, parts, component, base, bySlug, admin, get };
}

/** The cases: reads and writes of the demo account's graph. */
async function seedCases(api: ApiProcess): Promise<{ cases: Case[]; componentKey: { PK: string; SK: string } }> {
  const { accountId, graph, parts, component, base, bySlug, admin, get } = await demoGraph(api);
  const json = { ...admin, 'content-type': 'application/vnd.api+json' };
  const validate = (account: string) => ({
    url: `${account}/licenses/actions/validate-key`,
    method: 'POST',
    headers: { accept: 'application/vnd.api+json', 'content-type': 'application/vnd.api+json' },
    body: JSON.stringify({
      meta: { key: graph.license.attributes.key, scope: { fingerprint: graph.machine.attributes.fingerprint, components: parts } },
    }),
  });
  const cases: Case[] = [
    { name: 'GET a component', spec: get, ratioBudget: 0.5, cpuBudget: 2.5 },
    {
      name: 'GET a component, the account by slug',
      spec: { ...get, url: `${bySlug}/components/${component.id}` },
      bySlugOf: 'GET a component',
    },
    { name: 'List components (page 1, size 10)', spec: { url: `${base}/components?page[number]=1&page[size]=10`, headers: admin } },
    {
      name: 'Create a component',
      spec: {
        url: `${base}/components`,
        method: 'POST',
        headers: json,
        body: JSON.stringify(componentBody(graph.machine.id, 'c-{uuid}')),
        fresh: true,
      },
    },
    { name: VALIDATE, spec: validate(base), ratioBudget: 0.4, cpuBudget: 3 },
    { name: `${VALIDATE}, the account by slug`, spec: validate(bySlug), bySlugOf: VALIDATE },
  ];
  return { cases, componentKey: recordKey(accountId, 'components', component.id) };
}
