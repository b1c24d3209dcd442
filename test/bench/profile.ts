/**
 * Where the API's CPU goes on the GET path, against the bare server's: each runs in a process of
 * its own under `node --cpu-prof` (the API as `npm start` runs it, the bare server as the
 * throughput section starts it), autocannon (a third process) GETs one component from each for a
 * while, and the samples taken during each load are summed by function (self time), then by
 * layer (the service's code, the local HTTP adapter that API Gateway replaces when deployed, the
 * AWS SDK, Node's HTTP, system calls, the garbage collector...), so what the API adds over the
 * bare server reads off one table.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accountKey, recordKey } from '../../shared/store/keys.ts';
import { type BatchReadCost, batchReadCost } from './fair/batch-read.ts';
import type { LoadSpec } from './fair/load.ts';
import { load, startApi, startBare } from './fair/processes.ts';
import type { Measurement, Section } from './report.ts';
import { fmt } from './support.ts';
import { demoGraph } from './throughput.ts';

const SECONDS = Number(process.env.BENCH_DURATION_SECONDS ?? 10);
const TOP = 15;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Self time per function and per layer (µs) of one process's samples inside a load, and the requests it answered. */
interface Spent {
  byFunction: Map<string, number>;
  byLayer: Map<string, number>;
  total: number;
  requests: number;
}

/** The layers a GET's CPU is told apart by, in the table's order. */
const LAYERS = [
  'service code (shared/, functions/)',
  'local HTTP adapter (dev/local/)',
  'AWS SDK (@aws-sdk, @smithy)',
  'other packages',
  "Node's HTTP, sockets and streams",
  'crypto (Node)',
  'other Node internals',
  'system calls (writev, read...)',
  'garbage collector',
] as const;

/** Which layer a function belongs to, by its script's address. */
function layerOf(url: string, name: string): (typeof LAYERS)[number] {
  if (name === '(garbage collector)') return 'garbage collector';
  if (!url) return 'system calls (writev, read...)';
  if (url.startsWith('node:')) {
    if (/^node:(internal\/)?crypto/.test(url)) return 'crypto (Node)';
    if (/^node:(internal\/)?(_http|http|net|stream|streams|dns|tcp)/.test(url)) return "Node's HTTP, sockets and streams";
    return 'other Node internals';
  }
  if (/node_modules\/@(aws-sdk|smithy)\//.test(url)) return 'AWS SDK (@aws-sdk, @smithy)';
  if (url.includes('node_modules/')) return 'other packages';
  if (/\/dev\/local\//.test(url)) return 'local HTTP adapter (dev/local/)';
  if (/\/(shared|functions)\//.test(url)) return 'service code (shared/, functions/)';
  return 'other packages';
}

/** Where a function lives, by its script's path: its module in the repository, its package, or Node's module. */
function placeOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  if (url.startsWith('node:'))
    return url
      .replace(/^node:internal\//, 'node:')
      .split('/')
      .slice(0, 2)
      .join('/');
  const inRepo = url.match(/\/(shared|functions)\/(.+)$/);
  if (inRepo) return `${inRepo[1]}/${inRepo[2]}`;
  const pkg = url.match(/node_modules\/((@[^/]+\/)?[^/]+)/);
  return pkg ? (pkg[1] ?? url) : url;
}

interface Window {
  from: number;
  to: number;
  requests: number;
}

/** A warm-up, then the measured load: when it ran (wall clock) and the requests answered. */
async function loadWindow(spec: Omit<LoadSpec, 'connections' | 'seconds'>): Promise<Window> {
  await load({ ...spec, connections: 10, seconds: 3 });
  const from = Date.now();
  const { requests } = await load({ ...spec, connections: 10, seconds: SECONDS });
  return { from, to: Date.now(), requests };
}

/** The profile a process wrote into `directory` when it stopped (at `stoppedAt`), summed over `window`. */
function spentOf(directory: string, window: Window, stoppedAt: number): Spent {
  const file = readdirSync(directory).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error('the process wrote no CPU profile');
  return spentIn(JSON.parse(readFileSync(join(directory, file), 'utf8')) as Profile, window, stoppedAt);
}

export async function profileSection(): Promise<Section> {
  const directory = mkdtempSync(join(tmpdir(), 'licensing-profile-'));
  const apiDirectory = join(directory, 'api');
  const bareDirectory = join(directory, 'bare');
  try {
    // The API's DynamoDB Local (not profiled) serves both; the bare server reads the API's component.
    const api = await startApi({ cpuProfileDir: apiDirectory });
    let bareSpent: Spent;
    let apiWindow: Window;
    let batchRead: BatchReadCost;
    try {
      const { accountId, graph, component, get } = await demoGraph(api);
      const bare = await startBare(api, recordKey(accountId, 'components', component.id), { cpuProfileDir: bareDirectory });
      let bareWindow: Window;
      try {
        bareWindow = await loadWindow({ url: bare.url });
      } finally {
        await bare.stop();
      }
      bareSpent = spentOf(bareDirectory, bareWindow, Date.now());
      apiWindow = await loadWindow(get);
      // Three items, as a GET of a component reads (its account, the bearer's token lookup, the component).
      batchRead = await batchReadCost(api.dynamodb, api.tableName, [
        accountKey(accountId),
        recordKey(accountId, 'machines', graph.machine.id),
        recordKey(accountId, 'components', component.id),
      ]);
    } finally {
      await api.stop();
    }
    return report(spentOf(apiDirectory, apiWindow, Date.now()), bareSpent, batchRead);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Self time per function and per layer of the samples inside `window`. */
function spentIn(profile: Profile, window: Window, stoppedAt: number): Spent {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  // Sample times are on the profiler's clock (µs); its end is the process's exit, just before `stoppedAt`.
  const toWall = (micros: number) => stoppedAt - (profile.endTime - micros) / 1000;
  const byFunction = new Map<string, number>();
  const byLayer = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    const wall = toWall(at);
    if (wall < window.from || wall > window.to) return;
    const frame = nodes.get(id)?.callFrame;
    if (!frame || frame.functionName === '(idle)' || frame.functionName === '(program)') return;
    const place = placeOf(frame.url, frame.functionName);
    const name = `${frame.functionName || '(anonymous)'} — ${place}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + delta);
    const layer = layerOf(frame.url, frame.functionName);
    byLayer.set(layer, (byLayer.get(layer) ?? 0) + delta);
    total += delta;
  });
  return { byFunction, byLayer, total, requests: window.requests };
}

/** The table: busy CPU per GET of each, per layer side by side, then the API's costliest functions. */
function report(api: Spent, bare: Spent, batchRead: BatchReadCost): Section {
  const perRequest = (spent: Spent, micros: number) => micros / 1000 / Math.max(spent.requests, 1);
  const both = (apiMicros: number, bareMicros: number) => {
    const a = perRequest(api, apiMicros);
    const b = perRequest(bare, bareMicros);
    return `API ${fmt(a, 3)} ms, bare ${fmt(b, 3)} ms: ${a >= b ? '+' : '−'}${fmt(Math.abs(a - b), 3)} ms`;
  };
  const rows: Measurement[] = [
    {
      what: 'Busy CPU per GET (profiled)',
      figure: `${both(api.total, bare.total)} (${fmt(api.requests)} and ${fmt(bare.requests)} requests)`,
      budget: '',
    },
    ...LAYERS.map((layer) => ({
      what: `layer: ${layer}`,
      figure: both(api.byLayer.get(layer) ?? 0, bare.byLayer.get(layer) ?? 0),
      budget: '',
    })),
    ...[...api.byFunction]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([name, micros]) => ({
        what: `API function: ${name}`,
        figure: `${fmt(perRequest(api, micros), 3)} ms/req (${fmt((100 * micros) / api.total, 1)} %)`,
        budget: '',
      })),
    {
      what: `AWS SDK CPU per BatchGetItem of ${batchRead.keys} items: document client, then plain client with its middleware resolved once`,
      figure: `${fmt(batchRead.document, 3)} ms → ${fmt(batchRead.plain, 3)} ms (${fmt((100 * (batchRead.document - batchRead.plain)) / batchRead.document, 0)} % less)`,
      budget: 'less',
      met: batchRead.plain < batchRead.document,
    },
  ];
  const pipeline = (api.byLayer.get(LAYERS[0]) ?? 0) + (api.byLayer.get(LAYERS[1]) ?? 0);
  return {
    title: 'Where a GET spends its CPU',
    method: `The API as \`npm start\` runs it and the bare server of the throughput section, each in a process of its own under \`node --cpu-prof\` (which slows both a little), GET one component with autocannon in a third process (10 connections, ${SECONDS} s after a 3 s warm-up; the bare server first, then the API). Self time of the samples taken during each load, per layer (where the function lives) and per function, divided by the requests answered; idle time is left out. The local HTTP adapter is the part of \`npm start\` that turns a Node request into API Gateway's event and back: deployed, API Gateway does that work outside the function.`,
    rows,
    notes: [
      `**What the pipeline adds.** The service's own code and the local HTTP adapter together take ${fmt(perRequest(api, pipeline), 3)} ms of the API's ${fmt(perRequest(api, api.total), 3)} ms per GET (${fmt((100 * pipeline) / api.total, 0)} %): authentication, authorization, the record's document, the answer's rendering are each a few microseconds. The rest is what the bare server pays too — the AWS SDK's request (signing it, its middleware, reading its answer), Node's HTTP and the system calls that move the bytes — plus the answer's Ed25519 signature and SHA-256 digest (the crypto layer; see "Signed answers"), which the bare server does not make.`,
      `**The cut.** The costliest part of the SDK's request that the API controls was resolving the client's middleware stack on every call (the document client's commands cannot reuse a resolved stack). The store's batch read, the one request every API call makes, now goes through the plain client with \`cacheMiddleware\` and marshals its own keys and items: the last row measures both ways side by side in one process that does nothing else, alternating ${batchRead.rounds} rounds. The SDK functions still near the top are the middlewares' own work on each request (choosing the auth scheme, signing, reading the answer), which the bare server's GetItem pays alike: the SDK layer is now no costlier in the API than in the bare server.`,
    ].join('\n\n'),
  };
}
