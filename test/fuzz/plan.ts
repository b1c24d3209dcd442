/**
 * A request's plan: which route, as which bearer, in which scope, about which record, with what
 * body and query, and which mutations. Plans are plain data drawn from fast-check with a seed, so
 * the same seed and count give the same plans; request.ts turns one into the bytes sent.
 */
import fc from 'fast-check';
import { ROUTES, type RouteInfo } from './description.ts';
import { type Mutation, mutationOf } from './mutations.ts';
import { queryValuesOf, valuesOf } from './values.ts';
import { BEARER_KINDS, type BearerKind, SCOPES, type ScopeName } from './world.ts';

export interface Plan {
  /** Its place in the run, from 0. */
  index: number;
  operation: string;
  scope: ScopeName;
  bearer: BearerKind;
  /** Which pool the path's `{id}` comes from, and which of its records. */
  pool: 'stable' | 'expendable';
  pick: number;
  /** The record named by its alias (a license's key, a machine's fingerprint, an environment's code) where it has one. */
  alias: boolean;
  /** How the scope's environment is named: by header, by Keygen's header, by query parameter; by code or id. */
  environmentVia: 'service' | 'keygen' | 'query';
  environmentById: boolean;
  body: unknown;
  query: [string, unknown][];
  mutations: Mutation[];
}

/** Deletions are drawn less often than other requests, so the expendable records last the run. */
const weightOf = (info: RouteInfo) => (info.route.method === 'DELETE' ? 1 : 3);

function bearerOf(info: RouteInfo): fc.Arbitrary<BearerKind> {
  const weights: Record<BearerKind, number> = {
    admin: 4,
    envAdmin: 2,
    envToken: 2,
    product: 2,
    license: 2,
    licenseKey: 1,
    user: 2,
    basic: info.auth === 'basic' ? 12 : 1,
    none: info.auth === 'none' ? 12 : 1,
  };
  return fc.oneof(...BEARER_KINDS.map((kind) => ({ arbitrary: fc.constant(kind), weight: weights[kind] })));
}

const PAGE = fc.oneof(
  fc.constant<[string, unknown][]>([]),
  fc.integer({ min: 1, max: 100 }).map((size): [string, unknown][] => [['page[size]', String(size)]]),
  fc
    .record({ size: fc.integer({ min: 1, max: 100 }), number: fc.integer({ min: 1, max: 5 }) })
    .map(({ size, number }): [string, unknown][] => [
      ['page[number]', String(number)],
      ['page[size]', String(size)],
    ]),
  fc.integer({ min: 1, max: 100 }).map((size): [string, unknown][] => [
    ['page[cursor]', ''],
    ['page[size]', String(size)],
  ]),
  fc.integer({ min: 1, max: 100 }).map((limit): [string, unknown][] => [['limit', String(limit)]]),
);

function queryOf(info: RouteInfo): fc.Arbitrary<[string, unknown][]> {
  const own = info.query.map(({ name, schema }) =>
    fc.option(
      queryValuesOf(name, schema).map((value): [string, unknown] => [name, value]),
      { freq: 3 },
    ),
  );
  const filters = fc.tuple(...own).map((pairs) => pairs.filter((pair): pair is [string, unknown] => pair !== null));
  if (!info.paged) return filters;
  return fc.tuple(filters, PAGE).map(([a, b]) => [...a, ...b]);
}

function bodyOf(info: RouteInfo): fc.Arbitrary<unknown> {
  if (!info.body) return fc.constant(undefined);
  const value = valuesOf(info.body);
  // An optional body is sometimes left out, as clients do.
  return info.bodyRequired ? value : fc.option(value, { freq: 3, nil: undefined });
}

/** Four in ten requests valid; of the others most with one mutation, so that it reaches what it tests. */
function mutationsOf(info: RouteInfo): fc.Arbitrary<Mutation[]> {
  const one = mutationOf(info.body !== undefined, info.resource !== undefined);
  return fc.oneof(
    { arbitrary: fc.constant<Mutation[]>([]), weight: 8 },
    { arbitrary: fc.tuple(one), weight: 8 },
    { arbitrary: fc.tuple(one, one), weight: 3 },
    { arbitrary: fc.tuple(one, one, one), weight: 1 },
  );
}

const planOfRoute = (info: RouteInfo): fc.Arbitrary<Omit<Plan, 'index'>> =>
  fc.record({
    operation: fc.constant(info.route.operation),
    scope: fc.constantFrom(...SCOPES),
    bearer: bearerOf(info),
    pool:
      info.route.method === 'GET'
        ? fc.constantFrom('stable' as const, 'stable' as const, 'expendable' as const)
        : fc.constant('expendable' as const),
    pick: fc.nat(),
    alias: fc.constantFrom(true, false, false, false),
    environmentVia: fc.constantFrom('service' as const, 'service' as const, 'keygen' as const, 'query' as const),
    environmentById: fc.boolean(),
    body: bodyOf(info),
    query: queryOf(info),
    mutations: mutationsOf(info),
  });

const planArbitrary = fc.oneof(...ROUTES.map((info) => ({ arbitrary: planOfRoute(info), weight: weightOf(info) })));

/**
 * The `count` plans of `seed`: first one of each route of the route table, in its order (so that
 * even a short run reaches every route), then routes drawn at random.
 */
export function plansOf(seed: number, count: number): Plan[] {
  const each = ROUTES.slice(0, count).map((info, i) => fc.sample(planOfRoute(info), { seed: seed + i, numRuns: 1 })[0]!);
  const drawn = count > each.length ? fc.sample(planArbitrary, { seed, numRuns: count - each.length }) : [];
  return [...each, ...drawn].map((plan, index) => ({ ...plan, index }));
}
