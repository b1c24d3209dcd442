/**
 * Where the API's CPU goes on the GET path: the API runs as `npm start` runs it under
 * `node --cpu-prof`, autocannon (a process of its own) GETs one component for a while, and the
 * profile's samples taken during the load are summed by function (self time), then by where the
 * function lives (the pipeline, the store, the AWS SDK, Node's HTTP, the garbage collector...).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, startApi } from './fair/processes.ts';
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

/** Where a function lives, by its script's path. */
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

export async function profileSection(): Promise<Section> {
  const directory = mkdtempSync(join(tmpdir(), 'licensing-profile-'));
  try {
    const api = await startApi({ cpuProfileDir: directory });
    let window: [number, number];
    let stoppedAt: number;
    let requests: number;
    try {
      const { get } = await demoGraph(api);
      await load({ ...get, connections: 10, seconds: 3 });
      const started = Date.now();
      requests = (await load({ ...get, connections: 10, seconds: SECONDS })).requests;
      window = [started, Date.now()];
    } finally {
      await api.stop();
      stoppedAt = Date.now();
    }
    const file = readdirSync(directory).find((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error('the API wrote no CPU profile');
    const profile = JSON.parse(readFileSync(join(directory, file), 'utf8')) as Profile;
    return summarise(profile, window, stoppedAt, requests);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Self time per function and per place, of the samples inside the load's window. */
function summarise(profile: Profile, [from, to]: [number, number], stoppedAt: number, requests: number): Section {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  // Sample times are on the profiler's clock (µs); its end is the process's exit, just before `stoppedAt`.
  const toWall = (micros: number) => stoppedAt - (profile.endTime - micros) / 1000;
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    const wall = toWall(at);
    if (wall < from || wall > to) return;
    const frame = nodes.get(id)?.callFrame;
    if (!frame || frame.functionName === '(idle)' || frame.functionName === '(program)') return;
    const place = placeOf(frame.url, frame.functionName);
    const name = `${frame.functionName || '(anonymous)'} — ${place}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + delta);
    byPlace.set(place, (byPlace.get(place) ?? 0) + delta);
    total += delta;
  });
  const perRequest = (micros: number) => micros / 1000 / Math.max(requests, 1);
  const top = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  const rows: Measurement[] = [
    { what: 'Busy CPU per GET (profiled)', figure: `${fmt(perRequest(total), 3)} ms over ${fmt(requests)} requests`, budget: '' },
    ...top(byPlace).map(([place, micros]) => ({
      what: `place: ${place}`,
      figure: `${fmt(perRequest(micros), 3)} ms/req (${fmt((100 * micros) / total, 1)} %)`,
      budget: '',
    })),
    ...top(byFunction).map(([name, micros]) => ({
      what: `function: ${name}`,
      figure: `${fmt(perRequest(micros), 3)} ms/req (${fmt((100 * micros) / total, 1)} %)`,
      budget: '',
    })),
  ];
  return {
    title: 'Where a GET spends its CPU',
    method: `The API as \`npm start\` runs it, under \`node --cpu-prof\` (which slows it a little), GET one component with autocannon in a process of its own (10 connections, ${SECONDS} s after a 3 s warm-up). Self time of the samples taken during the load, per place (the module or package a function lives in) and per function, divided by the requests answered; idle time is left out.`,
    rows,
  };
}
