/**
 * The permission matrix (test/support/permission-matrix.ts) over real HTTP: every route with a
 * bearer, for every kind of bearer and for no credentials at all, on records in a SHARED
 * environment S and on global records seen from S. What the matrix says must be what the API
 * answers, so a service that forgot to ask the policies would show here.
 *
 * The routes are asked in parts (MATRIX_PARTS, by the resource a route names), one test file
 * each (test/http/permission-matrix-<part>.test.ts), so the parts run side by side with the rest
 * of the suite; test/unit/permission-matrix.test.ts holds that every route is in exactly one
 * part and that each part has its file. Each file makes its own account and records.
 *
 * Reads, changes and creates run every cell on one set of records. A route that removes, bans,
 * suspends or reinstates runs on records of its own: every refusal first (a refusal changes
 * nothing), then the first bearer the matrix lets through (the others would find the record gone
 * or changed); ban and unban, which may be repeated, run all of theirs. Records of its own are a
 * fresh graph, but for a removal of a record nothing hangs on (a process, a component, a key, an
 * endpoint, a token), which removes one made for it in the graph asked.
 */
import { randomUUID } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '#shared/auth/permissions.ts';
import { type Route, routes } from '#shared/routes.ts';
import { call, environmentToken, newAccount, newEnvironment, newNamedUser, newUser, type Reply, type TestAccount } from './client.ts';
import { doc, licensing, ref as relationship } from './licensing.ts';
import {
  BEARERS,
  type BearerName,
  expectedStatus,
  type Home,
  MATRIX,
  MATRIX_PARTS,
  type MatrixPart,
  type Ref,
  resourceOf,
} from './permission-matrix.ts';
import { type Receiver, startReceiver } from './receiver.ts';

/** Every route with a bearer (the matrix's routes that are not public). */
export const covered = routes.filter((route) => MATRIX[route.operation] !== 'public');

let account: TestAccount;
let receiver: Receiver;
let S: { id: string; code: string };
/** The credentials of the environment's administrators: the same whatever the record's home. */
let administrators: Record<'globalAdmin' | 'envAdmin' | 'envToken' | 'narrowToken', string>;

/** Records of one licensing graph, and the credentials of its product, license and users. */
interface Fixture {
  records: Record<Ref, string>;
  credentials: Record<BearerName, string>;
  /** An entitlement attached to the license itself (N is attached to its policy): what detaching from the license names. */
  licenseEntitlement: string;
  /** Entitlements attached nowhere: each attach that may succeed takes one. */
  spare: string[];
  /** A user of the graph's home attached to nothing: what attaching users to the license names. */
  unattached: string;
  /** A user attached to the license besides the one acting as `attachedUser`: what detaching names. */
  detachable: string;
  /** Who administers the graph's home: what makes the owner's second factor. */
  admin: { token: string; environment?: string };
  /** The owner's second factor (disabled), made the first time a route names one (a create needs the owner without). */
  factor?: Promise<{ id: string; secret: string }>;
}
const fixtures = {} as Record<'same' | 'global', Fixture>;
/** The password of each graph's owner (U), which the owner's own password update names. */
const OWNER_PASSWORD = 'the owner password';

/**
 * A licensing graph (product, policy, license owned by U, machine, component, process), an entitlement N
 * attached to the policy and one attached to the license, `spares` entitlements attached nowhere,
 * a webhook endpoint with an event, in `home`.
 */
async function fixtureIn(home: 'same' | 'global', spares = 0): Promise<Fixture> {
  const environment = home === 'same' ? S.code : undefined;
  const admin = home === 'same' ? administrators.envToken : account.adminToken;
  const l = licensing(account);
  const owner = await newUser(account, { password: OWNER_PASSWORD }, { environment, token: admin });
  const [other, attached] = await Promise.all(Array.from({ length: 2 }, () => newUser(account, {}, { environment, token: admin })));
  // Named only: attached to the license's users, and detached from them, by the routes asked.
  const [unattached, detachable] = await Promise.all(Array.from({ length: 2 }, () => newNamedUser(account, { environment, token: admin })));
  const product = await l.product({}, { token: admin, environment });
  // A duration, so that its license may be renewed; check-ins required, so that it may check in; a
  // pool with a key (its licenses are given theirs, so the pool keeps it until a pop takes it).
  const policy = await l.policy(
    product.id,
    { duration: 365 * 86_400, requireCheckIn: true, checkInInterval: 'year', checkInIntervalCount: 1, usePool: true },
    { token: admin, environment },
  );
  const pooled = await l.api('POST', '/keys', {
    token: admin,
    environment,
    body: doc('keys', { key: `pooled-${randomUUID()}` }, { policy: relationship('policies', policy.id) }),
  });
  expect(pooled.status, JSON.stringify(pooled.body)).toBe(201);
  const license = await l.license(policy.id, { key: `given-${randomUUID()}` }, { token: admin, environment, owner: owner.id });
  const users = await l.api('POST', `/licenses/${license.id}/users`, {
    token: admin,
    environment,
    body: { data: [attached, detachable].map((user) => ({ type: 'users', id: user.id })) },
  });
  expect(users.status, JSON.stringify(users.body)).toBe(200);
  const machine = await l.machine(license.id, {}, { token: admin, environment });
  const component = await l.component(machine.id, undefined, { token: admin, environment });
  const process = await l.api('POST', '/processes', {
    token: admin,
    environment,
    body: doc('processes', { pid: `pid-${unique()}` }, { machine: relationship('machines', machine.id) }),
  });
  expect(process.status, JSON.stringify(process.body)).toBe(201);
  const entitlement = async () => {
    const code = `feature-${unique()}`;
    const reply = await call('POST', `${account.path}/entitlements`, {
      token: admin,
      environment,
      body: doc('entitlements', { name: code, code }),
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body.data.id as string;
  };
  const [held, licenseEntitlement, ...spare] = await Promise.all(Array.from({ length: 2 + spares }, entitlement));
  for (const [holder, id] of [
    [`/policies/${policy.id}`, held],
    [`/licenses/${license.id}`, licenseEntitlement],
  ] as const) {
    const attached = await l.api('POST', `${holder}/entitlements`, { token: admin, environment, body: named(id) });
    expect(attached.status, JSON.stringify(attached.body)).toBe(200);
  }
  const endpoint = await call('POST', `${account.path}/webhook-endpoints`, {
    token: admin,
    environment,
    body: { data: { type: 'webhook-endpoints', attributes: { url: receiver.url } } },
  });
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
  // A change after the endpoint exists gives it an event.
  await l.api('PATCH', `/products/${product.id}`, { token: admin, environment, body: doc('products', { name: 'Renamed' }) });
  const events = await call('GET', `${account.path}/webhook-events?endpoint=${endpoint.body.data.id}`, { token: admin, environment });
  expect(events.body.data.length, JSON.stringify(events.body)).toBeGreaterThan(0);
  return {
    records: {
      P: product.id,
      Q: policy.id,
      L: license.id,
      M: machine.id,
      C: component.id,
      R: process.body.data.id,
      U: owner.id,
      T: owner.tokenId,
      W: endpoint.body.data.id,
      X: events.body.data[0].id,
      N: held,
      K: pooled.body.data.id,
      S: S.id,
    },
    licenseEntitlement,
    spare,
    unattached: unattached.id,
    detachable: detachable.id,
    admin: { token: admin, environment },
    credentials: {
      ...administrators,
      product: await l.productToken(product.id, { token: admin, environment }),
      licenseToken: await l.licenseToken(license.id, { token: admin, environment }),
      licenseKey: `License ${license.attributes.key}`,
      owner: owner.token,
      otherUser: other.token,
      attachedUser: attached.token,
    },
  };
}

/** The account, S, its administrators and the two fixtures; `spares` entitlements for the attach routes a part asks. */
async function setUp(spares: number): Promise<void> {
  account = await newAccount();
  receiver = await startReceiver();
  S = await newEnvironment(account, 'SHARED');
  const envAdmin = await newUser(account, { role: 'admin' }, { environment: S.code, token: account.adminToken });
  administrators = {
    globalAdmin: account.adminToken,
    envAdmin: envAdmin.token,
    envToken: await environmentToken(account, S.code),
    narrowToken: await environmentToken(
      account,
      S.code,
      PERMISSIONS.filter((permission) => permission.endsWith('.read')),
    ),
  };
  [fixtures.same, fixtures.global] = await Promise.all([fixtureIn('same', spares), fixtureIn('global')]);
}

const unique = () => randomUUID().slice(0, 8);

/** The owner's second factor: made once per graph, given the owner's password. */
function factorOf(fixture: Fixture): Promise<{ id: string; secret: string }> {
  fixture.factor ??= (async () => {
    const made = await call('POST', `${account.path}/users/${fixture.records.U}/second-factors`, {
      ...fixture.admin,
      body: { meta: { password: OWNER_PASSWORD } },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return { id: made.body.data.id, secret: (OTPAuth.URI.parse(made.body.data.attributes.uri) as OTPAuth.TOTP).secret.base32 };
  })();
  return fixture.factor;
}

/** The body of an attach or a detach naming one entitlement. */
const named = (id: string) => ({ data: [{ type: 'entitlements', id }] });

/** The body each route sends, naming the fixture's records where a relationship is needed. */
function bodyOf(route: Route, fixture: Fixture, id: string, factor?: { id: string; secret: string }): unknown {
  const { records } = fixture;
  const type = route.path.split('/')[4];
  if (route.operation === 'secondFactors.update' && factor) {
    const otp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(factor.secret) }).generate();
    // Disabled it stays: its removal, asked next, needs no code.
    return { data: { type: 'second-factors', attributes: { enabled: false } }, meta: { otp } };
  }
  if (route.method === 'PATCH') {
    const attributes = {
      users: { firstName: 'Same' },
      environments: { name: 'Shared' },
      'webhook-endpoints': { enabled: true },
      processes: { metadata: { same: true } },
      keys: {},
    }[type ?? ''] ?? { name: 'Same name' };
    return type === undefined ? doc('accounts', { name: 'Same account' }) : { data: { type, id, attributes } };
  }
  switch (route.operation) {
    case 'users.create':
      return doc('users', { email: `made-${unique()}@users.example` });
    case 'environments.create':
      return doc('environments', { name: 'Made', code: `made-${unique()}` });
    case 'products.create':
      return doc('products', { name: 'Made' });
    case 'policies.create':
      return doc('policies', { name: 'Made' }, { product: relationship('products', records.P) });
    case 'licenses.create':
      // Its own key: the policy's pool keeps its one key for the pop.
      return doc('licenses', { key: `made-${randomUUID()}` }, { policy: relationship('policies', records.Q) });
    case 'keys.create':
      return doc('keys', { key: `made-${randomUUID()}` }, { policy: relationship('policies', records.Q) });
    case 'machines.create':
      return doc('machines', { fingerprint: `fp-${unique()}` }, { license: relationship('licenses', records.L) });
    case 'components.create':
      return doc('components', { fingerprint: `c-${unique()}`, name: 'Part' }, { machine: relationship('machines', records.M) });
    case 'processes.create':
      return doc('processes', { pid: `pid-${unique()}` }, { machine: relationship('machines', records.M) });
    case 'webhookEndpoints.create':
      return doc('webhook-endpoints', { url: receiver.url });
    case 'entitlements.create':
      return doc('entitlements', { name: 'Made', code: `made-${unique()}` });
    case 'policies.entitlements.attach':
    case 'licenses.entitlements.attach':
      // A refusal changes nothing, whatever it names; a success takes a spare (none are left: N, already attached, 422).
      return named(fixture.spare.pop() ?? records.N);
    case 'policies.entitlements.detach':
      return named(records.N);
    case 'licenses.entitlements.detach':
      return named(fixture.licenseEntitlement);
    case 'machineRelationships.changeOwner':
      // The owner it has: a success moves nothing.
      return { data: { type: 'users', id: records.U } };
    case 'licenseRelationships.changePolicy':
      // The policy it has: a success moves nothing.
      return { data: { type: 'policies', id: records.Q } };
    case 'licenseUsers.attach':
      return { data: [{ type: 'users', id: fixture.unattached }] };
    case 'licenseUsers.detach':
      return { data: [{ type: 'users', id: fixture.detachable }] };
    case 'licenses.changeOwner':
    case 'licenses.changeUser':
      // The owner it has: a success hands the graph over to the user it belongs to already.
      return { data: { type: 'users', id: records.U } };
    case 'secondFactors.create':
      return { meta: { password: OWNER_PASSWORD } };
    case 'users.updatePassword':
      // The owner's own password, kept: the owner's other credentials and the fixture stay as they were.
      return { meta: { oldPassword: OWNER_PASSWORD, newPassword: OWNER_PASSWORD } };
    case 'licenses.decrementUsage':
      // Lowering by none is a change like any (200 with its event) whatever the count stands at.
      return { meta: { decrement: 0 } };
    default:
      return undefined;
  }
}

/** The record a route names in its path: the first its questions are about. */
function refOf(operation: string): Ref | undefined {
  const entry = MATRIX[operation];
  if (entry === 'public' || entry === undefined) return undefined;
  return (entry.steps.find((step) => 'type' in step && step.record !== undefined) as { record?: Ref } | undefined)?.record;
}

const REMOVES = (route: Route) => route.method === 'DELETE' || route.operation === 'users.ban' || route.operation === 'users.unban';
const REPEATABLE = new Set(['users.ban', 'users.unban']);
/**
 * Changes of a license's standing: the first success changes what a second would answer (422), and
 * a suspended license stops authenticating; each runs on a graph of its own, like a removal (and
 * reinstate on a license suspended first).
 */
const STANDING = new Set(['licenses.suspend', 'licenses.reinstate']);
/**
 * Regenerating T (the owner's own token) ends the owner's credential; a user holds one second
 * factor: each on a graph of its own too.
 */
const INVALIDATES = new Set(['tokens.regenerate', 'secondFactors.create']);

/**
 * Removals of a record nothing else hangs on: each removes one made for it in the graph that is
 * asked (in S), not a graph of its own. Every refusal first, then the first success.
 */
const LEAVES: Record<string, (fixture: Fixture) => Promise<string>> = {
  'processes.delete': async ({ records, admin }) =>
    made(
      await call('POST', `${account.path}/processes`, {
        ...admin,
        body: doc('processes', { pid: `pid-${unique()}` }, { machine: relationship('machines', records.M) }),
      }),
    ),
  'components.delete': async ({ records, admin }) =>
    made(
      await call('POST', `${account.path}/components`, {
        ...admin,
        body: doc('components', { fingerprint: `c-${unique()}`, name: 'Part' }, { machine: relationship('machines', records.M) }),
      }),
    ),
  'keys.delete': async ({ records, admin }) =>
    made(
      await call('POST', `${account.path}/keys`, {
        ...admin,
        body: doc('keys', { key: `leaf-${randomUUID()}` }, { policy: relationship('policies', records.Q) }),
      }),
    ),
  'webhookEndpoints.delete': async ({ admin }) =>
    made(await call('POST', `${account.path}/webhook-endpoints`, { ...admin, body: doc('webhook-endpoints', { url: receiver.url }) })),
  // Another token of the owner's: the owner's own credential (T) stays.
  'tokens.revoke': async ({ records, admin }) => made(await call('POST', `${account.path}/users/${records.U}/tokens`, { ...admin }), 200),
};

/** The id of a record a request made. */
function made(reply: Reply, status = 201): string {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  return reply.body.data.id as string;
}

/**
 * Changes that may succeed once only on the graph asked, nothing asked after them needing what
 * they change: the owner's second factor disabled with a code (each code is taken once), then
 * removed; a user attached to the license, another detached (each once). Every refusal first,
 * then the first success.
 */
const ONCE = new Set(['secondFactors.update', 'secondFactors.delete', 'licenseUsers.attach', 'licenseUsers.detach']);

type Cell = [BearerName | 'none', number];

async function ask(route: Route, fixture: Fixture, cell: Cell, target?: string): Promise<string | undefined> {
  const [bearer, expected] = cell;
  const ref = refOf(route.operation);
  const id = target ?? (ref ? fixture.records[ref] : undefined);
  const factor = route.path.includes('{secondFactor}') ? await factorOf(fixture) : undefined;
  const path = route.path
    .replace('/v1/accounts/{account}', account.path)
    .replace('{id}', ref === 'S' && !target ? S.code : (id ?? ''))
    .replace('{secondFactor}', factor?.id ?? '');
  const body = bodyOf(route, fixture, id ?? '', factor);
  const credential = bearer === 'none' ? undefined : fixture.credentials[bearer];
  const reply: Reply = await call(route.method, path, {
    environment: S.code,
    ...(credential?.startsWith('License ') ? { authorization: credential } : { token: credential }),
    ...(body !== undefined ? { body } : {}),
  });
  if (reply.status === expected) return undefined;
  return `${route.method} ${route.operation} as ${bearer}: ${reply.status}, expected ${expected} ${JSON.stringify(reply.body?.errors?.[0]?.detail ?? '')}`;
}

/** Asks every route of `part` (MATRIX_PARTS) as every bearer, records in S and global: one file's whole test. */
export function describeMatrixPart(part: MatrixPart): void {
  const resources: readonly string[] = MATRIX_PARTS[part];
  const inPart = covered.filter((route) => resources.includes(resourceOf(route)));
  // Every cell of each attach route takes a spare (each bearer, and none).
  const attaches = inPart.filter((route) => route.operation.endsWith('.entitlements.attach')).length;
  beforeAll(() => setUp((BEARERS.length + 1) * attaches));
  afterAll(() => receiver?.close());

  describe(`permission matrix over HTTP: ${part}`, () => {
    for (const home of ['same', 'global'] as const satisfies readonly Home[]) {
      it(`answers every bearer as the matrix says, records ${home === 'same' ? 'in S' : 'global, seen from S'}`, async () => {
        const wrong: string[] = [];
        let asked = 0;
        const run = async (route: Route, fixture: Fixture, cells: Cell[], parallel: boolean, target?: string) => {
          asked += cells.length;
          const answers = parallel
            ? await Promise.all(cells.map((cell) => ask(route, fixture, cell, target)))
            : await cells.reduce(
                async (done, cell) => [...(await done), await ask(route, fixture, cell, target)],
                Promise.resolve([] as (string | undefined)[]),
              );
          wrong.push(...answers.filter((answer): answer is string => answer !== undefined));
        };
        for (const route of inPart) {
          const cells: Cell[] = [];
          for (const bearer of BEARERS) {
            const status = expectedStatus(route.operation, bearer, home);
            if (status !== undefined) cells.push([bearer, status]);
          }
          cells.push(['none', 401]);
          if (cells.length === 1) continue; // this home does not apply to the route (the record is S, or there is none)
          const successes = cells.filter(([, status]) => status < 300);
          const refusals = cells.filter(([, status]) => status >= 300);
          const apart = REMOVES(route) || STANDING.has(route.operation) || INVALIDATES.has(route.operation) || ONCE.has(route.operation);
          if (!apart || successes.length === 0) {
            // Changes of one record go one at a time: a concurrent change may rightly answer 409.
            await run(route, fixtures[home], cells, route.method === 'GET');
            continue;
          }
          const leaf = LEAVES[route.operation];
          if (leaf || ONCE.has(route.operation)) {
            const target = leaf && (await leaf(fixtures[home]));
            await run(route, fixtures[home], refusals, true, target);
            await run(route, fixtures[home], successes.slice(0, 1), false, target);
            continue;
          }
          // Records of its own: an environment to delete, else a fresh graph.
          const own = route.operation === 'environments.delete' ? fixtures[home] : await fixtureIn('same');
          const target = route.operation === 'environments.delete' ? (await newEnvironment(account, 'ISOLATED')).id : undefined;
          if (route.operation === 'licenses.reinstate') {
            const suspended = await call('POST', `${account.path}/licenses/${own.records.L}/actions/suspend`, {
              token: account.adminToken,
              environment: S.code,
            });
            expect(suspended.status, JSON.stringify(suspended.body)).toBe(200);
          }
          await run(route, own, refusals, true, target);
          await run(route, own, REPEATABLE.has(route.operation) ? successes : successes.slice(0, 1), false, target);
          // An environment holds at most 20 webhook endpoints: a graph of its own gives its endpoint back (gone already after its own removal).
          if (own !== fixtures[home]) {
            const removed = await call('DELETE', `${account.path}/webhook-endpoints/${own.records.W}`, {
              token: administrators.envToken,
              environment: S.code,
            });
            expect([204, 404]).toContain(removed.status);
          }
        }
        expect(wrong).toEqual([]);
        // Every part has routes on records of both homes.
        expect(asked).toBeGreaterThan(0);
      });
    }
  });
}
