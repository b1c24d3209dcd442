/**
 * The permission matrix (test/support/permission-matrix.ts), judged by the policies over
 * in-memory records: no table, no server, milliseconds.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Bearer } from '#shared/auth/bearer.ts';
import { effectivePermissions } from '#shared/auth/held.ts';
import { type BearerKind, PERMISSIONS } from '#shared/auth/permissions.ts';
import { type Action, judge, POLICIES } from '#shared/auth/policies/index.ts';
import type { Policy, Principal } from '#shared/auth/policies/policy.ts';
import { routes } from '#shared/routes.ts';
import type { StoredItem } from '#shared/store/records.ts';
import { environmentScope } from '#shared/store/scope.ts';
import {
  BEARERS,
  type BearerName,
  expectedStatus,
  HOMES,
  type Home,
  MATRIX,
  MATRIX_PARTS,
  type Ref,
  resourceOf,
  type Step,
} from '../support/permission-matrix.ts';

const A = 'a0000000-0000-4000-8000-000000000001';
const OTHER_ACCOUNT = 'a0000000-0000-4000-8000-000000000002';
const S = 'e0000000-0000-4000-8000-000000000001';
const E2 = 'e0000000-0000-4000-8000-000000000002';

type Graph = Record<Ref, StoredItem>;

function graphIn(home: Home): Graph {
  const accountId = home === 'otherAccount' ? OTHER_ACCOUNT : A;
  const environmentId = home === 'global' ? null : home === 'otherEnvironment' ? E2 : S;
  const tag = HOMES.indexOf(home);
  const id = (n: number) => `00000000-0000-4000-8000-0000000${tag}000${n}`;
  const record = (type: string, n: number, extra: Record<string, unknown> = {}) =>
    ({ PK: `${type}#${id(n)}`, SK: '#', type, id: id(n), accountId, environmentId, ...extra }) as StoredItem;
  const [P, Q, L, M, , U, , , W] = [1, 2, 3, 4, 5, 6, 7, 8, 9].map(id) as string[];
  return {
    P: record('products', 1),
    Q: record('policies', 2, { productId: P }),
    L: record('licenses', 3, { productId: P, policyId: Q, ownerId: U, protected: false }),
    M: record('machines', 4, { productId: P, policyId: Q, licenseId: L, ownerId: U, licenseOwnerId: U }),
    C: record('components', 5, { productId: P, policyId: Q, licenseId: L, machineId: M, ownerId: U, licenseOwnerId: U }),
    R: record('processes', 12, { productId: P, policyId: Q, licenseId: L, machineId: M, ownerId: U, licenseOwnerId: U }),
    U: record('users', 6, { role: 'user', status: 'ACTIVE' }),
    T: record('tokens', 8, { bearerType: 'users', bearerId: U, kind: 'user-token', permissions: ['*'] }),
    W: record('webhook-endpoints', 9),
    X: record('webhook-events', 10, { endpointId: W }),
    N: record('entitlements', 11),
    K: record('keys', 13, { productId: P, policyId: Q }),
    S: {
      PK: `environments#${S}`,
      SK: '#',
      type: 'environments',
      id: S,
      accountId: A,
      environmentId: null,
      created: '2026-01-01T00:00:00.000Z',
      updated: '2026-01-01T00:00:00.000Z',
      isolationStrategy: 'SHARED',
    } as StoredItem,
    ...{ V: record('users', 7, { role: 'user', status: 'ACTIVE' }), A: record('users', 14, { role: 'user', status: 'ACTIVE' }) },
  } as Graph & { V: StoredItem; A: StoredItem };
}

/** The read permissions only: a token narrowed to reading. */
const READ_ONLY = PERMISSIONS.filter((permission) => permission.endsWith('.read'));

function bearerOf(name: BearerName, graph: Graph & { V?: StoredItem; A?: StoredItem }): Bearer {
  const make = (
    kind: BearerKind,
    type: Bearer['type'],
    id: string,
    home: string | null,
    granted: readonly string[] = ['*'],
    extra: Partial<Bearer> = {},
  ): Bearer => ({ kind, type, id, environmentId: home, permissions: effectivePermissions(kind, home, granted), ...extra });
  const home = (graph.P.environmentId as string | null) ?? null;
  const license = { productId: graph.P.id as string, policyId: graph.Q.id as string };
  switch (name) {
    case 'globalAdmin':
      return make('admin', 'users', 'b0000000-0000-4000-8000-000000000001', null);
    case 'envAdmin':
      return make('admin', 'users', 'b0000000-0000-4000-8000-000000000002', S);
    case 'envToken':
      return make('environment', 'environments', S, S);
    case 'narrowToken':
      return make('environment', 'environments', S, S, READ_ONLY);
    case 'product':
      return make('product', 'products', graph.P.id as string, home);
    case 'licenseToken':
      return make('license', 'licenses', graph.L.id as string, home, ['*'], {
        ...license,
        tokenId: 'c0000000-0000-4000-8000-000000000001',
      });
    case 'licenseKey':
      return make('license', 'licenses', graph.L.id as string, home, ['*'], license);
    case 'owner':
      return make('user', 'users', graph.U.id as string, home);
    case 'otherUser':
      return make('user', 'users', graph.V!.id as string, home);
    case 'attachedUser':
      return make('user', 'users', graph.A!.id as string, home);
  }
}

function principalOf(bearer: Bearer, graph: Graph & { A?: StoredItem }): Principal {
  // A is attached to L: a user of the license besides its owner.
  const ofLicense = bearer.id === graph.L.ownerId || bearer.id === graph.A?.id;
  return {
    bearer,
    scope: environmentScope(A, { id: S, isolationStrategy: 'SHARED' }),
    holdsLicense: async (where) =>
      ofLicense &&
      (where.productId ?? graph.L.productId) === graph.L.productId &&
      (where.policyId ?? graph.L.policyId) === graph.L.policyId,
    attachedTo: async (licenseId) => bearer.id === graph.A?.id && licenseId === graph.L.id,
    licenseOf: async (record) => (record.licenseId === graph.L.id ? graph.L : undefined),
    // N is attached to the license's policy: the license and the license's users hold it.
    holdsEntitlement: async (entitlementId) => entitlementId === graph.N.id && (bearer.id === graph.L.id || ofLicense),
  };
}

/** A license's lifecycle actions answer 200 with the license. */
const LICENSE_ACTIONS = new Set([
  'licenses.suspend',
  'licenses.reinstate',
  'licenses.renew',
  'licenses.incrementUsage',
  'licenses.decrementUsage',
  'licenses.resetUsage',
  'licenses.checkIn',
]);
/** A machine's heartbeat actions answer 200 with the machine. */
const MACHINE_ACTIONS = new Set(['machines.ping', 'machines.pingHeartbeat', 'machines.reset', 'machines.resetHeartbeat']);

/** The status the policies give one route for one bearer: the first question refused, else the route's success. */
async function statusOf(route: string, steps: Step[], bearerName: BearerName, home: Home): Promise<number> {
  const records = graphIn(home);
  // Bearers tied to a licensing graph are the graph's own where they could authenticate into S at all (global ones); otherwise S's.
  const theirs = home === 'same' || home === 'global' ? records : graphIn('same');
  const actor = principalOf(bearerOf(bearerName, theirs), records);
  let license: StoredItem | undefined;
  for (const step of steps) {
    if ('grant' in step) {
      const missing = step.grant(actor.scope.environmentId).filter((permission) => !actor.bearer.permissions.has(permission));
      if (missing.length > 0) return 403;
      continue;
    }
    if ('relate' in step) {
      const record = records[step.record];
      const policy: Policy = POLICIES[step.relate];
      const visible = record.accountId === A && actor.scope.readable.includes((record.environmentId as string | null) ?? null);
      if (!visible || !(await (policy.relatable ?? policy.reaches)(actor, record))) return 422;
      if (step.relate === 'licenses') license = record;
      if (step.relate === 'machines') license = records.L;
      continue;
    }
    const record = step.record ? records[step.record] : undefined;
    const judgement = await judge(actor, step.type, step.action as Action<typeof step.type>, record, license ? { license } : {});
    if (!judgement.allowed) return judgement.status;
  }
  const method = routes.find((r) => r.operation === route)!.method;
  if (
    route.endsWith('.tokens.generate') ||
    route.endsWith('.entitlements.attach') ||
    route === 'licenseUsers.attach' ||
    route === 'licenses.validate' ||
    route.endsWith('.checkOut') ||
    route.endsWith('.ping') ||
    LICENSE_ACTIONS.has(route) ||
    MACHINE_ACTIONS.has(route)
  )
    return 200;
  if (method === 'POST') return ['users.ban', 'users.unban', 'users.updatePassword'].includes(route) ? 200 : 201;
  if (method === 'DELETE') return route === 'policies.pool.pop' ? 200 : 204;
  return 200;
}

describe('permission matrix', () => {
  it('asks every route with a bearer over HTTP in exactly one part, each part in its own file', () => {
    for (const route of routes.filter((candidate) => MATRIX[candidate.operation] !== 'public')) {
      const parts = Object.entries(MATRIX_PARTS).filter(([, resources]) => (resources as readonly string[]).includes(resourceOf(route)));
      expect(
        parts.map(([part]) => part),
        route.operation,
      ).toHaveLength(1);
    }
    for (const part of Object.keys(MATRIX_PARTS)) {
      expect(existsSync(new URL(`../http/permission-matrix-${part}.test.ts`, import.meta.url)), part).toBe(true);
    }
  });

  it('covers every route of the route table', () => {
    expect(routes.map((route) => route.operation).filter((operation) => MATRIX[operation] === undefined)).toEqual([]);
    expect(Object.keys(MATRIX).filter((operation) => !routes.some((route) => route.operation === operation))).toEqual([]);
  });

  for (const home of HOMES) {
    it(`answers as written for records ${home === 'same' ? 'in the same environment' : home}`, async () => {
      const wrong: string[] = [];
      let checked = 0;
      for (const [route, entry] of Object.entries(MATRIX)) {
        if (entry === 'public') continue;
        for (const bearer of BEARERS) {
          const expected = expectedStatus(route, bearer, home);
          if (expected === undefined) continue;
          checked++;
          const actual = await statusOf(route, entry.steps, bearer, home);
          if (actual !== expected) wrong.push(`${route} as ${bearer}: ${actual}, expected ${expected}`);
        }
      }
      expect(wrong).toEqual([]);
      expect(checked).toBeGreaterThan(home === 'same' ? 600 : 300);
    });
  }
});
