/**
 * A slice of the permission matrix (test/support/permission-matrix.ts) over real HTTP: every
 * route that reads or changes a record without removing it (GET and PATCH on `/<type>/{id}` and
 * the relationship routes), for every kind of bearer and no credentials at all, on records in
 * a SHARED environment S and on global records seen from S. What the matrix says must be what
 * the API answers; destructive routes are judged by the unit run only.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '#shared/auth/permissions.ts';
import { routes } from '#shared/routes.ts';
import { call, environmentToken, newAccount, newEnvironment, newUser, type TestAccount } from './support/client.ts';
import { licensing } from './support/licensing.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { BEARERS, expectedStatus, MATRIX, type BearerName, type Home, type Ref } from '../support/permission-matrix.ts';

let account: TestAccount;
let receiver: Receiver;
let S: { id: string; code: string };
/** Credentials by bearer, per home of the licensing graph they belong to. */
const credentials: Record<'same' | 'global', Partial<Record<BearerName, string>>> = { same: {}, global: {} };
const records: Record<'same' | 'global', Partial<Record<Ref, string>>> = { same: {}, global: {} };

const PATCH_BODIES: Record<string, (id: string) => unknown> = {
  users: (id) => ({ data: { type: 'users', id, attributes: { firstName: 'Same' } } }),
  products: (id) => ({ data: { type: 'products', id, attributes: { name: 'Same name' } } }),
  policies: (id) => ({ data: { type: 'policies', id, attributes: { name: 'Same name' } } }),
  licenses: (id) => ({ data: { type: 'licenses', id, attributes: { name: 'Same name' } } }),
  machines: (id) => ({ data: { type: 'machines', id, attributes: { name: 'Same name' } } }),
  components: (id) => ({ data: { type: 'components', id, attributes: { name: 'Same name' } } }),
  'webhook-endpoints': (id) => ({ data: { type: 'webhook-endpoints', id, attributes: { enabled: true } } }),
};

/** One licensing graph (product, policy, license owned by U, machine, component), its users and their credentials, made in `home`. */
async function graphIn(home: 'same' | 'global') {
  const environment = home === 'same' ? S.code : undefined;
  const admin = home === 'same' ? credentials.same.envToken! : account.adminToken;
  const l = licensing(account);
  const owner = await newUser(account, {}, { environment, token: admin });
  const other = await newUser(account, {}, { environment, token: admin });
  const product = await l.product({}, { token: admin, environment });
  const policy = await l.policy(product.id, {}, { token: admin, environment });
  const license = await l.license(policy.id, {}, { token: admin, environment, owner: owner.id });
  const machine = await l.machine(license.id, {}, { token: admin, environment });
  const component = await l.component(machine.id, undefined, { token: admin, environment });
  const endpoint = await call('POST', `${account.path}/webhook-endpoints`, {
    token: admin,
    environment,
    body: { data: { type: 'webhook-endpoints', attributes: { url: receiver.url } } },
  });
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
  // A change after the endpoint exists gives it an event.
  await l.api('PATCH', `/products/${product.id}`, { token: admin, environment, body: PATCH_BODIES.products!(product.id) });
  const events = await call('GET', `${account.path}/webhook-events?endpoint=${endpoint.body.data.id}`, { token: admin, environment });
  expect(events.body.data.length, JSON.stringify(events.body)).toBeGreaterThan(0);
  Object.assign(records[home], {
    P: product.id, Q: policy.id, L: license.id, M: machine.id, C: component.id, U: owner.id, T: owner.tokenId,
    W: endpoint.body.data.id, X: events.body.data[0].id, S: S.id,
  });
  Object.assign(credentials[home], {
    product: await l.productToken(product.id, { token: admin, environment }),
    licenseToken: await l.licenseToken(license.id, { token: admin, environment }),
    licenseKey: `License ${license.attributes.key}`,
    owner: owner.token,
    otherUser: other.token,
  });
}

beforeAll(async () => {
  account = await newAccount();
  receiver = await startReceiver();
  S = await newEnvironment(account, 'SHARED');
  const envToken = (permissions?: string[]) => environmentToken(account, S.code, permissions);
  const envAdmin = await newUser(account, { role: 'admin' }, { environment: S.code, token: account.adminToken });
  const shared = {
    globalAdmin: account.adminToken,
    envAdmin: envAdmin.token,
    envToken: await envToken(),
    narrowToken: await envToken(PERMISSIONS.filter((permission) => permission.endsWith('.read'))),
  };
  Object.assign(credentials.same, shared);
  Object.assign(credentials.global, shared);
  await Promise.all([graphIn('same'), graphIn('global')]);
}, 60_000);

/** The routes of the slice: GET and PATCH on one named record (no create, list, delete or action). */
const slice = routes.filter((route) => {
  const entry = MATRIX[route.operation];
  return entry !== 'public' && entry !== undefined && route.path.includes('{id}') && (route.method === 'GET' || route.method === 'PATCH');
});

function refOf(operation: string): Ref {
  const entry = MATRIX[operation];
  if (entry === 'public' || entry === undefined) throw new Error(operation);
  const first = entry.steps.find((step) => 'record' in step && step.record !== undefined) as { record: Ref };
  return first.record;
}

describe('permission matrix over HTTP', () => {
  it('covers a real slice', () => {
    expect(slice.length).toBeGreaterThan(25);
  });

  for (const home of ['same', 'global'] as const satisfies readonly Home[]) {
    it(`answers every bearer as the matrix says, records ${home === 'same' ? 'in S' : 'global, seen from S'}`, async () => {
      const wrong: string[] = [];
      let checked = 0;
      for (const route of slice) {
        const ref = refOf(route.operation);
        const id = records[home][ref]!;
        const path = route.path.replace('/v1/accounts/{account}', account.path).replace('{id}', ref === 'S' ? S.code : id);
        const type = route.path.split('/')[4]!;
        const body = route.method === 'PATCH' ? PATCH_BODIES[type]?.(ref === 'S' ? S.id : id) : undefined;
        if (route.method === 'PATCH' && body === undefined) continue; // the account and environments: account-level, not in the slice
        const cells: [BearerName | 'none', number | undefined][] = [
          ...BEARERS.map((bearer) => [bearer, expectedStatus(route.operation, bearer, home)] as [BearerName, number | undefined]),
          ['none', 401],
        ];
        const ask = async ([bearer, expected]: [BearerName | 'none', number | undefined]) => {
          if (expected === undefined) return;
          const credential = bearer === 'none' ? undefined : credentials[home][bearer]!;
          const reply = await call(route.method, path, {
            environment: S.code,
            ...(credential?.startsWith('License ') ? { authorization: credential } : { token: credential }),
            ...(body ? { body } : {}),
          });
          checked++;
          if (reply.status !== expected) wrong.push(`${route.method} ${route.operation} as ${bearer}: ${reply.status}, expected ${expected} ${JSON.stringify(reply.body?.errors?.[0]?.detail ?? '')}`);
        };
        // Reads side by side; changes of one record one at a time (a concurrent change may rightly answer 409).
        if (route.method === 'GET') await Promise.all(cells.map(ask));
        else for (const cell of cells) await ask(cell);
      }
      expect(wrong).toEqual([]);
      expect(checked).toBeGreaterThan(200);
    }, 60_000);
  }
});

