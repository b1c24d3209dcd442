/**
 * What must hold once the load is over:
 * - every list the admin reaches counts (`links.meta.count`) exactly the records its `next`
 *   links lead through, by page number and by cursor, with no id twice (docs/rules.md §4);
 * - every link of a record the run saw (`links.self`, relationships' `links.related`) resolves
 *   with the credential and environment that saw it (docs/rules.md §9), as long as the record
 *   is still there.
 */
import { operationOf } from './checks.ts';
import { JSON_API, ROUTES } from './description.ts';
import { type Incoming, type Outgoing, send } from './http.ts';
import type { Scope, World } from './world.ts';

export interface Finding {
  kind: 'link-unresolved' | 'count-mismatch' | 'duplicate-id';
  operation: string;
  request: Outgoing;
  answer: Incoming;
  detail: string;
  as: string;
}

/** A credential and environment a document was seen with. */
export interface Viewer {
  authorization: string;
  environment: string | undefined;
  /** Which bearer kind in which scope, for the report. */
  label: string;
}

function get(path: string, viewer: Pick<Viewer, 'authorization' | 'environment'>): Outgoing {
  const headers: Record<string, string> = { accept: JSON_API };
  if (viewer.authorization) headers.authorization = viewer.authorization;
  if (viewer.environment) headers['service-environment'] = viewer.environment;
  return { method: 'GET', path, headers };
}

const parse = (answer: Incoming): any => {
  try {
    return JSON.parse(answer.text);
  } catch {
    return undefined;
  }
};

const relative = (link: string) => (link.startsWith('http') ? new URL(link).pathname + new URL(link).search : link);

// ---------------------------------------------------------------------------------------------
// Lists

const MAX_PAGES = 400;

interface Walk {
  count: number;
  ids: string[];
  failure?: { request: Outgoing; answer: Incoming; detail: string };
}

/** Follows `next` from `first`, collecting ids. */
async function walk(api: string, first: string, viewer: Viewer): Promise<Walk | undefined> {
  let next: string | null = first;
  let count: number | undefined;
  const ids: string[] = [];
  for (let pages = 0; next && pages < MAX_PAGES; pages++) {
    const request = get(next, viewer);
    const answer = await send(api, request);
    if (answer.status !== 200) {
      // A list the admin cannot reach at all is not this check's; a page after the first that fails is.
      if (pages === 0) return undefined;
      return { count: count ?? 0, ids, failure: { request, answer, detail: `page ${pages + 1} answered ${answer.status}` } };
    }
    const document = parse(answer);
    const pageCount = document?.links?.meta?.count;
    if (count === undefined) count = pageCount;
    else if (pageCount !== count) {
      return { count, ids, failure: { request, answer, detail: `page ${pages + 1} counts ${pageCount}, the first ${count}` } };
    }
    ids.push(...(document?.data ?? []).map((resource: { id: string }) => resource.id));
    next = document?.links?.next ? relative(document.links.next) : null;
  }
  return { count: count ?? 0, ids };
}

/** The paths of a list route for a scope: its `{id}`s are the scope's stable records and a live expendable one. */
function listPaths(template: string, resource: string | undefined, world: World, scope: Scope, perScope: number): string[] {
  const base = template.replace('{account}', world.account.id);
  if (!resource) return [base];
  const ids = [...(scope.expendable[resource] ?? []).slice(-1), ...(scope.stable[resource] ?? [])].slice(0, perScope);
  return ids.map((id) => base.replace('{id}', encodeURIComponent(id)));
}

export async function checkLists(world: World, onRequest: () => void, perScope: number): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const info of ROUTES) {
    if (!info.paged || info.route.method !== 'GET') continue;
    for (const scope of Object.values(world.scopes)) {
      const viewer: Viewer = { authorization: world.admin, environment: scope.environment?.code, label: `admin in ${scope.name}` };
      for (const path of listPaths(info.route.path, info.resource, world, scope, perScope)) {
        const probe = await send(world.api, get(`${path}?page[size]=1`, viewer));
        onRequest();
        if (probe.status !== 200) continue;
        // Small pages where the list is short, to cross many page boundaries; large ones where it is long.
        const size = (parse(probe)?.links?.meta?.count ?? 0) <= 60 ? 4 : 100;
        for (const mode of ['number', 'cursor'] as const) {
          const finding = await checkList(world, info.route.operation, path, mode, size, viewer, onRequest);
          if (finding) findings.push(finding);
        }
      }
    }
  }
  return findings;
}

async function checkList(
  world: World,
  operation: string,
  path: string,
  mode: 'number' | 'cursor',
  size: number,
  viewer: Viewer,
  onRequest: () => void,
): Promise<Finding | undefined> {
  const first = mode === 'number' ? `${path}?page[number]=1&page[size]=${size}` : `${path}?page[cursor]=&page[size]=${size}`;
  // A record a worker removes meanwhile (a culled machine) changes the count: a mismatch must show twice running.
  let result: Walk | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    result = await walk(world.api, first, { ...viewer });
    onRequest();
    if (!result || (!result.failure && result.count === result.ids.length && new Set(result.ids).size === result.ids.length))
      return undefined;
  }
  if (!result) return undefined;
  const request = get(first, viewer);
  const as = viewer.label;
  if (result.failure)
    return {
      kind: 'count-mismatch',
      operation,
      request: result.failure.request,
      answer: result.failure.answer,
      detail: `${mode} pages: ${result.failure.detail}`,
      as,
    };
  const answer: Incoming = { status: 200, headers: new Headers(), text: '', ms: 0 };
  const duplicates = result.ids.filter((id, i) => result.ids.indexOf(id) !== i);
  if (duplicates.length) {
    return {
      kind: 'duplicate-id',
      operation,
      request,
      answer,
      detail: `${mode} pages repeat ${[...new Set(duplicates)].slice(0, 5).join(', ')}`,
      as,
    };
  }
  return {
    kind: 'count-mismatch',
    operation,
    request,
    answer,
    detail: `${mode} pages: links.meta.count ${result.count}, ${result.ids.length} records reached through links.next`,
    as,
  };
}

// ---------------------------------------------------------------------------------------------
// Links

/** Remembers the records and lists the run saw, each with the viewer that saw it, up to `budget` of them. */
export class SeenLinks {
  private readonly seen = new Map<string, { link: string; viewer: Viewer; operation: string }>();

  constructor(private readonly budget: number) {}

  remember(document: any, viewer: Viewer, operation: string): void {
    const resources = Array.isArray(document?.data) ? document.data : document?.data ? [document.data] : [];
    const links = resources.map((resource: any) => resource?.links?.self).filter((link: unknown) => typeof link === 'string');
    if (Array.isArray(document?.data) && typeof document?.links?.self === 'string') links.push(document.links.self);
    for (const link of links) {
      if (this.seen.size >= this.budget) return;
      const key = `${link} ${viewer.authorization} ${viewer.environment ?? ''}`;
      if (!this.seen.has(key)) this.seen.set(key, { link: relative(link), viewer, operation });
    }
  }

  entries() {
    return [...this.seen.values()];
  }
}

/**
 * The links of a document, each once, as test/support/links.ts collects them: the top-level
 * `links` (a list's self, first, prev, next, last), and of each resource its `links.self` and
 * `links.related` and every relationship's `links.related`.
 */
function linksOf(document: any): string[] {
  const links: unknown[] = [];
  for (const [name, value] of Object.entries(document?.links ?? {})) if (name !== 'meta') links.push(value);
  const resources = Array.isArray(document?.data) ? document.data : document?.data ? [document.data] : [];
  for (const resource of resources) {
    links.push(resource?.links?.self, resource?.links?.related);
    for (const relationship of Object.values(resource?.relationships ?? {}) as any[]) links.push(relationship?.links?.related);
  }
  return [...new Set(links.filter((link): link is string => typeof link === 'string').map(relative))];
}

/**
 * A link resolves when it answers 2xx, or 403: the record is there and the link is right, only
 * this bearer may not read it (an account or an environment seen by a product token); the rule
 * of test/support/links.ts, from docs/rules.md §9. A 404 may also hide a record from a
 * bearer that may not see it (product and license bearers do not reach users, docs/authorization.md),
 * and §9 asks a link to resolve only "for a bearer allowed to see the record": a 404 the account's
 * admin does not get in the same environment is such a refusal, not a broken link.
 */
const resolves = (status: number) => (status >= 200 && status < 300) || status === 403;

/**
 * Each record seen is read again through its own link with the viewer that saw it; when it is
 * still there, every link of the fresh document must resolve for the same viewer. A record gone
 * since (deleted, or its bearer revoked) is skipped: only what the API still serves is judged.
 * Links refused to the viewer (403, or a 404 the admin does not get) are counted in `refused`,
 * by the operation they name.
 */
export async function checkLinks(
  world: World,
  seen: SeenLinks,
  onRequest: () => void,
  concurrency: number,
  refused: Map<string, number>,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const adminResolves = async (link: string, viewer: Viewer) => {
    const answer = await send(world.api, get(link, { authorization: world.admin, environment: viewer.environment }));
    onRequest();
    return answer.status >= 200 && answer.status < 300;
  };
  const resolved = new Map<string, number>();
  const entries = seen.entries();
  let next = 0;
  const worker = async () => {
    while (next < entries.length) {
      const entry = entries[next++]!;
      const request = get(entry.link, entry.viewer);
      const answer = await send(world.api, request);
      onRequest();
      if (answer.status < 200 || answer.status >= 300) continue;
      resolved.set(`${entry.link} ${entry.viewer.authorization} ${entry.viewer.environment ?? ''}`, answer.status);
      for (const link of linksOf(parse(answer))) {
        const key = `${link} ${entry.viewer.authorization} ${entry.viewer.environment ?? ''}`;
        if (resolved.has(key)) continue;
        const followed = get(link, entry.viewer);
        const result = await send(world.api, followed);
        onRequest();
        resolved.set(key, result.status);
        const named = operationOf('GET', link);
        if (result.status === 403 || (result.status === 404 && (await adminResolves(link, entry.viewer)))) {
          refused.set(`${named} ${result.status}`, (refused.get(`${named} ${result.status}`) ?? 0) + 1);
          continue;
        }
        if (resolves(result.status)) continue;
        const deleted = Object.entries(world.graveyard).find(([, ids]) => ids.some((id) => link.includes(id) || result.text.includes(id)));
        findings.push({
          kind: 'link-unresolved',
          operation: entry.operation,
          request: followed,
          answer: result,
          detail: `${link}, a link of ${entry.link}, answered ${result.status}${deleted ? ` (it, or its answer, names one of the ${deleted[0]} the run deleted)` : ''}`,
          as: entry.viewer.label,
        });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return findings;
}
