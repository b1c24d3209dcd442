/**
 * The fuzzer: sends the plans of a seed against a running API with fixtures (world.ts), checks
 * every answer (checks.ts), keeps the expendable pools up to date with what the run creates and
 * deletes, then checks the invariants (invariants.ts) once the stack is idle.
 */
import { checkAnswer, type Failure, operationOf } from './checks.ts';
import { type Incoming, send } from './http.ts';
import { checkLinks, checkLists, type Finding, SeenLinks } from './invariants.ts';
import { type Plan, plansOf } from './plan.ts';
import { type Built, build } from './request.ts';
import type { World } from './world.ts';

export interface FuzzOptions {
  world: World;
  seed: number;
  requests: number;
  /** Requests in flight at once; 1 makes a run exactly repeatable. */
  concurrency?: number;
  /** Send only the plans of these indexes (a failure's), after the fixtures. */
  only?: readonly number[];
  /** Whether the server still runs: asked when a request gets no answer. */
  alive?: () => boolean | Promise<boolean>;
  /** How many records seen the link check reads again. */
  linkBudget?: number;
  /** How many records of each scope the lists under a record (`/licenses/{id}/machines`) are checked for (default 3). */
  listPathsPerScope?: number;
  /** How long to wait for the stack's queues to drain before the invariants (default 60 s). */
  idleSeconds?: number;
  progress?: (line: string) => void;
  /** Told every request and its answer (`--trace`). */
  trace?: (line: string) => void;
}

export interface FuzzReport {
  seed: number;
  /** Requests of the plans sent. */
  requests: number;
  /** Requests the invariants sent after the load. */
  invariantRequests: number;
  statusClasses: Record<string, number>;
  durationMs: number;
  slowestMs: number;
  /** Operations reached, and operation × bearer pairs. */
  operations: number;
  pairs: number;
  /** Requests sent without any mutation, and how many of them succeeded (2xx). */
  valid: number;
  valid2xx: number;
  /** The statuses of the requests without mutation, by operation. */
  validStatuses: Record<string, Record<number, number>>;
  /** Links refused to the bearer that saw them (403, or a 404 the admin does not get), by the operation they name and the status. */
  refusedLinks: Record<string, number>;
  failures: Failure[];
}

export async function fuzz(options: FuzzOptions): Promise<FuzzReport> {
  const { world, seed } = options;
  const concurrency = options.concurrency ?? 4;
  const started = performance.now();
  const all = plansOf(seed, options.requests);
  const plans = options.only ? all.filter((plan) => options.only?.includes(plan.index)) : all;
  const report: FuzzReport = {
    seed,
    requests: 0,
    invariantRequests: 0,
    statusClasses: {},
    durationMs: 0,
    slowestMs: 0,
    operations: 0,
    pairs: 0,
    valid: 0,
    valid2xx: 0,
    validStatuses: {},
    refusedLinks: {},
    failures: [],
  };
  const seen = new SeenLinks(options.linkBudget ?? 1_500);
  const operations = new Set<string>();
  const pairs = new Set<string>();
  let next = 0;
  let dead = false;

  async function one(plan: Plan): Promise<void> {
    const built = build(plan, world);
    const answer = await send(world.api, built.request);
    report.requests++;
    options.trace?.(
      `#${plan.index} ${plan.operation} as ${plan.bearer} in ${plan.scope} ${JSON.stringify(plan.mutations).slice(0, 300)}\n  ${built.request.method} ${built.request.path.slice(0, 300)} ${JSON.stringify(built.request.headers).slice(0, 300)}\n  ${built.request.body?.toString('utf8').slice(0, 600) ?? ''}\n  → ${answer.status} ${answer.text.slice(0, 600)}`,
    );
    const statusClass = answer.error ? 'none' : `${Math.floor(answer.status / 100)}xx`;
    report.statusClasses[statusClass] = (report.statusClasses[statusClass] ?? 0) + 1;
    report.slowestMs = Math.max(report.slowestMs, answer.ms);
    if (plan.mutations.length === 0) {
      report.valid++;
      if (answer.status >= 200 && answer.status < 300) report.valid2xx++;
      const statuses = report.validStatuses[plan.operation] ?? {};
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      report.validStatuses[plan.operation] = statuses;
    }
    operations.add(plan.operation);
    pairs.add(`${plan.operation} ${plan.bearer}`);
    for (const problem of await checkAnswer(built.request, answer)) {
      report.failures.push(failureOf(seed, built, answer, problem.kind, problem.detail));
    }
    if (answer.error && !(await (options.alive?.() ?? true))) {
      dead = true;
      report.failures.push(failureOf(seed, built, answer, 'server-died', 'the server stopped running'));
      return;
    }
    learn(world, built, answer, seen);
    if (report.requests % 1_000 === 0) options.progress?.(`${report.requests} requests, ${report.failures.length} failures`);
  }

  const worker = async () => {
    while (!dead && next < plans.length) await one(plans[next++] as Plan);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  report.operations = operations.size;
  report.pairs = pairs.size;

  if (!dead) {
    options.progress?.('load done; waiting for the stack to be idle, then checking lists and links');
    await send(world.api, { method: 'GET', path: `/_local/idle?timeout=${options.idleSeconds ?? 60}`, headers: {} });
    const counted = () => void report.invariantRequests++;
    const refused = new Map<string, number>();
    const findings = [
      ...(await checkLists(world, counted, options.listPathsPerScope ?? 3)),
      ...(await checkLinks(world, seen, counted, concurrency, refused)),
    ];
    report.refusedLinks = Object.fromEntries([...refused].sort((a, b) => b[1] - a[1]));
    report.failures.push(...findings.map((finding) => findingFailure(seed, finding)));
  }
  report.durationMs = performance.now() - started;
  return report;
}

function failureOf(seed: number, built: Built, answer: Incoming, kind: Failure['kind'], detail: string): Failure {
  return {
    kind,
    seed,
    index: built.plan.index,
    operation: operationOf(built.request.method, built.request.path),
    request: built.request,
    status: answer.status,
    answer: answer.error ?? answer.text,
    detail,
    requestId: answer.headers.get('x-request-id') ?? undefined,
    as: `${built.plan.bearer} in ${built.plan.scope}`,
  };
}

function findingFailure(seed: number, finding: Finding): Failure {
  return {
    kind: finding.kind,
    seed,
    operation: finding.operation,
    request: finding.request,
    status: finding.answer.status,
    answer: finding.answer.error ?? finding.answer.text,
    detail: finding.detail,
    requestId: finding.answer.headers.get('x-request-id') ?? undefined,
    as: finding.as,
  };
}

/** Keeps the pools true to what the answer did, and remembers what it showed for the link check. */
function learn(world: World, built: Built, answer: Incoming, seen: SeenLinks): void {
  if (answer.status < 200 || answer.status >= 300 || !built.as) return;
  const document = answer.text && /json/.test(answer.headers.get('content-type') ?? '') ? safeParse(answer.text) : undefined;
  const { scope } = built.as;
  const made = document?.data;
  if (answer.status === 201 && typeof made?.type === 'string' && typeof made?.id === 'string') {
    const home = made.type === 'environments' ? world.scopes.global : scope;
    home.expendable[made.type]?.push(made.id);
  }
  const idMutated = built.plan.mutations.some((mutation) => mutation.on === 'id');
  if (
    built.request.method === 'DELETE' &&
    built.info.route.method === 'DELETE' &&
    built.target &&
    !idMutated &&
    !built.info.route.path.endsWith('/entitlements')
  ) {
    const { collection, id } = built.target;
    for (const each of Object.values(world.scopes)) {
      for (const pool of [each.stable, each.expendable]) pool[collection] = (pool[collection] ?? []).filter((other) => other !== id);
    }
    world.graveyard[collection]?.push(id);
  }
  if (document) seen.remember(document, { ...built.as, label: `${built.plan.bearer} in ${built.plan.scope}` }, built.plan.operation);
}

function safeParse(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
