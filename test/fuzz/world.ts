/**
 * The fuzzer's fixtures: one account with data of every kind in three scopes (the global
 * environment, an ISOLATED and a SHARED environment), a credential of every bearer kind in each,
 * and a second account whose ids and credentials serve as "another account's".
 *
 * Records are kept in two pools per scope. The stable pool holds the records the credentials
 * stand for and their graph: the fuzzer only reads those, so the bearers keep working for the
 * whole run. The expendable pool holds records that any request may change or delete; records
 * the run creates join it, and deleted ones leave it for the graveyard (ids that once existed).
 */
import { randomUUID } from 'node:crypto';
import { createAccount } from '#shared/resources/accounts/service.ts';
import { jsonCall } from './http.ts';

export const SCOPES = ['global', 'isolated', 'shared'] as const;
export type ScopeName = (typeof SCOPES)[number];

export const BEARER_KINDS = ['admin', 'envAdmin', 'envToken', 'product', 'license', 'licenseKey', 'user', 'basic', 'none'] as const;
export type BearerKind = (typeof BEARER_KINDS)[number];

/** The collections a path's `{id}` may name. */
export const COLLECTIONS = [
  'users',
  'tokens',
  'environments',
  'products',
  'policies',
  'licenses',
  'machines',
  'components',
  'processes',
  'entitlements',
  'webhook-endpoints',
  'webhook-events',
] as const;

export type Records = Record<string, string[]>;

export interface Scope {
  name: ScopeName;
  /** The environment of the scope; undefined for the global one. */
  environment?: { id: string; code: string };
  /** The Authorization header of each bearer kind that exists in the scope. */
  bearers: Partial<Record<BearerKind, string>>;
  stable: Records;
  expendable: Records;
}

export interface World {
  api: string;
  account: { id: string; slug: string };
  /** The global admin's Authorization header. */
  admin: string;
  receiverUrl: string;
  scopes: Record<ScopeName, Scope>;
  other: { id: string; slug: string; admin: string; records: Records; environment: { id: string; code: string } };
  /** An environment deleted before the run. */
  deadEnvironment: { id: string; code: string };
  /** Ids of records deleted during the run, by collection. */
  graveyard: Records;
  /** Another key naming a record in a path: a license's key, a machine's fingerprint, an environment's code. */
  aliases: Map<string, string>;
}

const emptyRecords = (): Records => Object.fromEntries(COLLECTIONS.map((collection) => [collection, []]));
const unique = () => randomUUID().slice(0, 10);
const basic = (email: string, password: string) => `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;
const doc = (type: string, attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => ({
  data: { type, attributes, ...(relationships ? { relationships } : {}) },
});
const rel = (type: string, id: string) => ({ data: { type, id } });

const PASSWORD = 'a long fuzz password';

/** Requests of one account as its global admin, in one environment (or the global one). */
function client(api: string, accountId: string, admin: string, environment?: string) {
  const path = `/v1/accounts/${accountId}`;
  async function request(method: string, at: string, body?: unknown, expected = [200, 201], authorization = admin) {
    const reply = await jsonCall(api, method, `${path}${at}`, { authorization, environment, body });
    if (!expected.includes(reply.status)) throw new Error(`fixture ${method} ${at}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  }
  const make = async (at: string, body: unknown) => (await request('POST', at, body)).data as { id: string; attributes: any };
  async function user(role: 'user' | 'admin') {
    const email = `fuzz-${unique()}@fuzz.example`;
    const made = await make('/users', doc('users', { email, password: PASSWORD, firstName: 'Fuzz', role }));
    const login = await request('POST', '/tokens', undefined, [201], basic(email, PASSWORD));
    return { id: made.id, email, token: login.data.attributes.token as string, tokenId: login.data.id as string };
  }
  return { request, make, user };
}

type Client = ReturnType<typeof client>;

/** One licensing graph: a user owning a license of a policy of a product, a machine with a component and a process, entitlements, an endpoint. */
async function graph(c: Client, records: Records, aliases: Map<string, string>, receiverUrl: string) {
  const owner = await c.user('user');
  const product = await c.make('/products', doc('products', { name: `Product ${unique()}` }));
  const policy = await c.make(
    '/policies',
    doc(
      'policies',
      { name: 'Policy', duration: 365 * 86_400, maxMachines: 50, maxProcesses: 50 },
      { product: rel('products', product.id) },
    ),
  );
  const license = await c.make('/licenses', doc('licenses', {}, { policy: rel('policies', policy.id), owner: rel('users', owner.id) }));
  const fingerprint = `fp-${unique()}`;
  const machine = await c.make('/machines', doc('machines', { fingerprint }, { license: rel('licenses', license.id) }));
  const component = await c.make(
    '/components',
    doc('components', { fingerprint: `c-${unique()}`, name: 'Part' }, { machine: rel('machines', machine.id) }),
  );
  const process = await c.make('/processes', doc('processes', { pid: `pid-${unique()}` }, { machine: rel('machines', machine.id) }));
  const entitlements = await Promise.all(
    [0, 1].map(() => c.make('/entitlements', doc('entitlements', { name: 'Feature', code: `feature-${unique()}` }))),
  );
  await c.request('POST', `/policies/${policy.id}/entitlements`, { data: [{ type: 'entitlements', id: entitlements[0]?.id }] });
  await c.request('POST', `/licenses/${license.id}/entitlements`, { data: [{ type: 'entitlements', id: entitlements[1]?.id }] });
  const endpoint = await c.make('/webhook-endpoints', doc('webhook-endpoints', { url: receiverUrl }));
  aliases.set(license.id, license.attributes.key);
  aliases.set(machine.id, fingerprint);
  const add = (collection: string, ...ids: string[]) => records[collection]?.push(...ids);
  add('users', owner.id);
  add('tokens', owner.tokenId);
  add('products', product.id);
  add('policies', policy.id);
  add('licenses', license.id);
  add('machines', machine.id);
  add('components', component.id);
  add('processes', process.id);
  add('entitlements', ...entitlements.map((e) => e.id));
  add('webhook-endpoints', endpoint.id);
  return { owner, product, license };
}

async function scopeOf(
  name: ScopeName,
  api: string,
  accountId: string,
  admin: string,
  receiverUrl: string,
  aliases: Map<string, string>,
  expendableGraphs: number,
  environment?: { id: string; code: string },
): Promise<Scope> {
  const c = client(api, accountId, admin, environment?.code);
  const scope: Scope = { name, environment, bearers: { admin, none: '' }, stable: emptyRecords(), expendable: emptyRecords() };
  const [main] = await Promise.all([
    graph(c, scope.stable, aliases, receiverUrl),
    ...Array.from({ length: expendableGraphs }, () => graph(c, scope.expendable, aliases, receiverUrl)),
  ]);
  const envAdmin = await c.user('admin');
  scope.stable.users?.push(envAdmin.id);
  scope.stable.tokens?.push(envAdmin.tokenId);
  const productToken = await c.request('POST', `/products/${main.product.id}/tokens`);
  const licenseToken = await c.request('POST', `/licenses/${main.license.id}/tokens`);
  scope.bearers.envAdmin = `Bearer ${envAdmin.token}`;
  scope.bearers.product = `Bearer ${productToken.data.attributes.token}`;
  scope.bearers.license = `Bearer ${licenseToken.data.attributes.token}`;
  scope.bearers.licenseKey = `License ${main.license.attributes.key}`;
  scope.bearers.user = `Bearer ${main.owner.token}`;
  scope.bearers.basic = basic(main.owner.email, PASSWORD);
  if (environment) {
    const token = await c.request('POST', `/environments/${environment.code}/tokens`);
    scope.bearers.envToken = `Bearer ${token.data.attributes.token}`;
  }
  // Every change above gave the scope's endpoints events.
  const events = await c.request('GET', '/webhook-events?page[size]=6');
  scope.stable['webhook-events']?.push(...events.data.slice(0, 3).map((event: { id: string }) => event.id));
  scope.expendable['webhook-events']?.push(...events.data.slice(3).map((event: { id: string }) => event.id));
  return scope;
}

async function newAccount(label: string) {
  const slug = `fuzz-${label}-${unique()}`;
  const made = await createAccount({ slug, name: `Fuzz ${label}`, email: `admin@${slug}.example`, password: PASSWORD });
  return { id: made.account.id, slug, admin: `Bearer ${made.token}`, publicKey: made.account.signingKey?.publicKey };
}

async function environmentOf(api: string, accountId: string, admin: string, isolationStrategy: 'ISOLATED' | 'SHARED') {
  const code = `${isolationStrategy.toLowerCase()}-${unique()}`;
  const made = await client(api, accountId, admin).make('/environments', doc('environments', { name: code, code, isolationStrategy }));
  return { id: made.id, code };
}

/**
 * Builds the fixtures on the API at `api`; webhook endpoints deliver to `receiverUrl` (a loopback
 * receiver). Each scope gets `expendableGraphs` licensing graphs that requests may change and delete.
 */
export async function buildWorld(api: string, receiverUrl: string, expendableGraphs = 2): Promise<World> {
  const account = await newAccount('main');
  const other = await newAccount('other');
  const aliases = new Map<string, string>();
  const [isolated, shared, spareA, spareB, dead, otherEnvironment] = await Promise.all([
    environmentOf(api, account.id, account.admin, 'ISOLATED'),
    environmentOf(api, account.id, account.admin, 'SHARED'),
    environmentOf(api, account.id, account.admin, 'ISOLATED'),
    environmentOf(api, account.id, account.admin, 'SHARED'),
    environmentOf(api, account.id, account.admin, 'ISOLATED'),
    environmentOf(api, other.id, other.admin, 'SHARED'),
  ]);
  await client(api, account.id, account.admin).request('DELETE', `/environments/${dead.id}`, undefined, [204]);
  for (const environment of [isolated, shared, spareA, spareB]) aliases.set(environment.id, environment.code);
  const [global, isolatedScope, sharedScope] = await Promise.all([
    scopeOf('global', api, account.id, account.admin, receiverUrl, aliases, expendableGraphs),
    scopeOf('isolated', api, account.id, account.admin, receiverUrl, aliases, expendableGraphs, isolated),
    scopeOf('shared', api, account.id, account.admin, receiverUrl, aliases, expendableGraphs, shared),
  ]);
  global.stable.environments?.push(isolated.id, shared.id);
  global.expendable.environments?.push(spareA.id, spareB.id);
  isolatedScope.stable.environments?.push(isolated.id);
  sharedScope.stable.environments?.push(shared.id);
  const otherRecords = emptyRecords();
  await graph(client(api, other.id, other.admin), otherRecords, new Map(), receiverUrl);
  otherRecords.environments?.push(otherEnvironment.id);
  return {
    api,
    account: { id: account.id, slug: account.slug },
    admin: account.admin,
    receiverUrl,
    scopes: { global, isolated: isolatedScope, shared: sharedScope },
    other: { id: other.id, slug: other.slug, admin: other.admin, records: otherRecords, environment: otherEnvironment },
    deadEnvironment: dead,
    graveyard: emptyRecords(),
    aliases,
  };
}
