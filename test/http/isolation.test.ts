/**
 * The isolation matrix (docs/rules.md §2, §5–6).
 *
 * One account; homes: global, A (ISOLATED), B (SHARED), C (ISOLATED). Every cell
 * bearer × request environment × target home gets the status the contract predicts:
 *
 *   admission   a bearer is admitted into its own environment only; global bearers into SHARED
 *               ones too; global admins everywhere                           → 401 TOKEN_INVALID
 *   visibility  none sees global; ISOLATED its own; SHARED its own + global;
 *               users see only themselves and their own tokens              → 404 NOT_FOUND
 *   write       records change only from their own environment (global is
 *               read-only from SHARED)                                      → 403
 *   permission  users may not list or create or delete users                → 403
 *
 * Reads are checked exactly (lists return precisely the records in reach). Failing cells never
 * change anything: PATCH cells expected to fail send a changed value, those expected to succeed
 * the unchanged one, and every record is compared before and after. DELETE and revoke cells of
 * admitted bearers act on disposable records made for the cell.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { basic, call, newAccount, newUser, type Reply, type TestAccount, userBody } from '../support/client.ts';

type Home = 'global' | 'A' | 'B' | 'C';
type Env = 'none' | 'A' | 'B';
type Kind = 'admin' | 'user' | 'environment';
const HOMES: Home[] = ['global', 'A', 'B', 'C'];
const ENVS: Env[] = ['none', 'A', 'B'];
const STRATEGY = { A: 'ISOLATED', B: 'SHARED', C: 'ISOLATED' } as const;

interface BearerSpec {
  name: string;
  kind: Kind;
  home: Home;
  token: string;
  /** The user record the bearer is, for user-kind and admin bearers. */
  userId?: string;
}

interface UserFixture {
  id: string;
  email: string;
  password: string;
  home: Home;
  token: string;
  tokenId: string;
}

let account: TestAccount;
const code: Record<Exclude<Home, 'global'>, string> = { A: '', B: '', C: '' };
const envId: Record<Exclude<Home, 'global'>, string> = { A: '', B: '', C: '' };
const envTokenValue: Record<string, string> = {};
const envTokenId: Record<string, string> = {};
/** The one user made from inside each home (the global one is the global-user bearer). */
const homeUser = {} as Record<Home, UserFixture>;
/** A second global user: someone the global user may not see. */
let otherGlobal: UserFixture;
let adminTokenId: string;
let bearers: BearerSpec[];

/** Every user and token of the account, with its home, as this file made them. */
const users = new Map<string, Home>();
const tokens = new Map<string, { home: Home; ownerUserId?: string }>();

const headerOf = (env: Env | Home) => (env === 'none' || env === 'global' ? undefined : code[env]);
const homeAdmin = (home: Home) => (home === 'global' ? account.adminToken : envTokenValue[home]!);

/** Runs tasks with at most `limit` in flight, keeping their order. */
async function pool<T>(tasks: (() => Promise<T>)[], limit = 12): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

// ---- the contract, as functions -------------------------------------------------------------

function admitted(bearer: { kind: Kind; home: Home }, env: Env): boolean {
  if (env === 'none') return bearer.home === 'global';
  if (bearer.home !== 'global') return bearer.home === env;
  return bearer.kind === 'admin' || STRATEGY[env] === 'SHARED';
}
/** What a request in `env` reads of `home`: a SHARED environment shares global users, never global tokens (docs/rules.md §5.2). */
function readable(env: Env, home: Home, type: 'users' | 'tokens' = 'users'): boolean {
  if (env === 'none') return home === 'global';
  if (STRATEGY[env] === 'SHARED') return home === env || (home === 'global' && type === 'users');
  return home === env;
}
const writable = (env: Env, home: Home) => (env === 'none' ? 'global' : env) === home;
const administrator = (bearer: BearerSpec) => bearer.kind === 'admin' || bearer.kind === 'environment';

interface Target {
  type: 'users' | 'tokens';
  label: string;
  id: string;
  home: Home;
  /** The user the record is, or whose token it is. */
  ownerUserId?: string;
}

/** GET one record: 401 → 404 (reach) → 404 (not theirs) → 200. */
function expectRead(b: BearerSpec, env: Env, t: Target): number {
  if (!admitted(b, env)) return 401;
  if (!readable(env, t.home, t.type)) return 404;
  if (!administrator(b) && t.ownerUserId !== b.userId) return 404;
  return 200;
}
/** PATCH / DELETE / revoke: as a read, then 403 unless written from the record's own environment. */
function expectWrite(b: BearerSpec, env: Env, t: Target, success: number, needsAdmin: boolean): number {
  const read = expectRead(b, env, t);
  if (read !== 200) return read;
  if (!writable(env, t.home)) return 403;
  if (needsAdmin && !administrator(b)) return 403;
  return success;
}
const expectUserList = (b: BearerSpec, env: Env) => (!admitted(b, env) ? 401 : administrator(b) ? 200 : 403);
const expectTokenList = (b: BearerSpec, env: Env) => (!admitted(b, env) ? 401 : 200);
const expectUserCreate = (b: BearerSpec, env: Env) => (!admitted(b, env) ? 401 : administrator(b) ? 201 : 403);

// ---- checking cells --------------------------------------------------------------------------

const CODES: Record<number, string | undefined> = { 401: 'TOKEN_INVALID', 404: 'NOT_FOUND', 403: undefined };

/** '' when the reply is what the cell expects, else a line describing the mismatch. */
function judge(cell: string, reply: Reply, expected: number, checkCode = true): string {
  const got = reply.status;
  const error = reply.body?.errors?.[0];
  if (got !== expected) return `${cell}: expected ${expected}, got ${got} ${error ? `${error.code ?? ''} "${error.detail}"` : ''}`;
  if (expected >= 400) {
    if (!error || reply.body.data !== undefined) return `${cell}: ${got} without an error document`;
    if (checkCode && error.code !== CODES[expected]) return `${cell}: ${got} with code ${error.code}, expected ${CODES[expected]}`;
  }
  return '';
}

const at = (b: BearerSpec, env: Env, target?: string) => `${b.name} env=${env}${target ? ` target=${target}` : ''}`;

async function listAll(path: string, token: string, environment?: string): Promise<any[]> {
  const reply = await call('GET', `${account.path}${path}?page[size]=100`, { token, environment });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body.links.meta.count, 'fits in one page').toBeLessThanOrEqual(100);
  return reply.body.data;
}

const envOf = (doc: any): Home => {
  const id = doc.relationships.environment.data?.id;
  if (!id) return 'global';
  return (Object.keys(envId) as Exclude<Home, 'global'>[]).find((h) => envId[h] === id) ?? (`unknown:${id}` as Home);
};

interface Snapshot {
  users: Map<string, any>;
  tokens: Map<string, any>;
  /** Records of each home alone (B's user list minus the global users it also shows; its token list holds its own only). */
  userCount: Record<Home, number>;
  tokenCount: Record<Home, number>;
}

async function snapshot(userIds: string[], tokenIds: string[]): Promise<Snapshot> {
  const get = async (type: string, id: string, home: Home) => {
    const reply = await call('GET', `${account.path}/${type}/${id}`, { token: homeAdmin(home), environment: headerOf(home) });
    expect(reply.status, `${type}/${id} (${home}): ${JSON.stringify(reply.body)}`).toBe(200);
    return reply.body.data;
  };
  const count = async (type: string, home: Home) =>
    (await call('GET', `${account.path}/${type}?page[size]=1`, { token: homeAdmin(home), environment: headerOf(home) })).body.links.meta
      .count as number;
  const [u, t, counts] = await Promise.all([
    Promise.all(userIds.map((id) => get('users', id, users.get(id)!))),
    Promise.all(tokenIds.map((id) => get('tokens', id, tokens.get(id)!.home))),
    Promise.all(HOMES.flatMap((h) => [count('users', h), count('tokens', h)])),
  ]);
  const userCount = {} as Record<Home, number>;
  const tokenCount = {} as Record<Home, number>;
  HOMES.forEach((h, i) => {
    userCount[h] = counts[2 * i]!;
    tokenCount[h] = counts[2 * i + 1]!;
  });
  userCount.B -= userCount.global;
  return { users: new Map(u.map((d) => [d.id, d])), tokens: new Map(t.map((d) => [d.id, d])), userCount, tokenCount };
}

// ---- fixtures ----------------------------------------------------------------------------------

async function makeUser(home: Home, extra: Record<string, unknown> = {}): Promise<UserFixture> {
  const made = await newUser(account, extra, { environment: headerOf(home), token: homeAdmin(home) });
  users.set(made.id, home);
  tokens.set(made.tokenId, { home, ownerUserId: made.id });
  return { id: made.id, email: made.email, password: made.password, home, token: made.token, tokenId: made.tokenId };
}

let before: Snapshot;
/** Changes the cells were meant to make, per home. */
const delta = {
  users: { global: 0, A: 0, B: 0, C: 0 } as Record<Home, number>,
  tokens: { global: 0, A: 0, B: 0, C: 0 } as Record<Home, number>,
};
/** Users a successful PATCH cell touched (their `updated` may move). */
const patched = new Set<string>();
/** Disposable records and whether their cell should have removed them. */
const disposable: { type: 'users' | 'tokens'; id: string; home: Home; removed: boolean }[] = [];

beforeAll(async () => {
  account = await newAccount();
  users.set(account.adminId, 'global');
  const tag = randomUUID().slice(0, 6);
  await Promise.all(
    (['A', 'B', 'C'] as const).map(async (h) => {
      code[h] = `iso-${h.toLowerCase()}-${tag}`;
      const env = await call('POST', `${account.path}/environments`, {
        token: account.adminToken,
        body: { data: { type: 'environments', attributes: { name: `Env ${h}`, code: code[h], isolationStrategy: STRATEGY[h] } } },
      });
      expect(env.status, JSON.stringify(env.body)).toBe(201);
      envId[h] = env.body.data.id;
      const token = await call('POST', `${account.path}/environments/${code[h]}/tokens`, {
        token: account.adminToken,
        environment: code[h],
      });
      expect(token.status, JSON.stringify(token.body)).toBe(200);
      envTokenValue[h] = token.body.data.attributes.token;
      envTokenId[h] = token.body.data.id;
      tokens.set(token.body.data.id, { home: h });
    }),
  );
  const list = await call('GET', `${account.path}/tokens`, { token: account.adminToken });
  expect(list.body.data).toHaveLength(1);
  adminTokenId = list.body.data[0].id;
  tokens.set(adminTokenId, { home: 'global', ownerUserId: account.adminId });

  const made = await Promise.all([...HOMES.map((h) => makeUser(h)), makeUser('global')]);
  for (const [i, h] of HOMES.entries()) homeUser[h] = made[i]!;
  otherGlobal = made[4]!;

  bearers = [
    { name: 'global-admin', kind: 'admin', home: 'global', token: account.adminToken, userId: account.adminId },
    { name: 'global-user', kind: 'user', home: 'global', token: homeUser.global.token, userId: homeUser.global.id },
    { name: 'env-A-token', kind: 'environment', home: 'A', token: envTokenValue.A! },
    { name: 'env-B-token', kind: 'environment', home: 'B', token: envTokenValue.B! },
    { name: 'env-C-token', kind: 'environment', home: 'C', token: envTokenValue.C! },
    { name: 'A-user', kind: 'user', home: 'A', token: homeUser.A.token, userId: homeUser.A.id },
    { name: 'B-user', kind: 'user', home: 'B', token: homeUser.B.token, userId: homeUser.B.id },
  ];
  before = await snapshot([...users.keys()], [...tokens.keys()]);
});

/** The user targets: the user made inside each home, plus a global user nobody but admins may see. */
const userTargets = (): Target[] => [
  ...HOMES.map((h) => ({ type: 'users' as const, label: `${h}-user`, id: homeUser[h].id, home: h, ownerUserId: homeUser[h].id })),
  { type: 'users' as const, label: 'other-global-user', id: otherGlobal.id, home: 'global' as Home, ownerUserId: otherGlobal.id },
];
const tokenTargets = (): Target[] => [
  ...HOMES.map((h) => ({
    type: 'tokens' as const,
    label: `${h}-user-token`,
    id: homeUser[h].tokenId,
    home: h,
    ownerUserId: homeUser[h].id,
  })),
  { type: 'tokens' as const, label: 'global-admin-token', id: adminTokenId, home: 'global' as Home, ownerUserId: account.adminId },
];
const cells = () => bearers.flatMap((b) => ENVS.map((env) => ({ b, env })));

describe('isolation matrix', () => {
  it('lists: GET /users and GET /tokens show exactly the records in reach', async () => {
    const failures: string[] = [];
    const tasks = cells().flatMap(({ b, env }) => [
      async () => {
        const reply = await call('GET', `${account.path}/users?page[size]=100`, { token: b.token, environment: headerOf(env) });
        const expected = expectUserList(b, env);
        const verdict = judge(`users.list ${at(b, env)}`, reply, expected);
        if (verdict) return failures.push(verdict);
        if (expected !== 200) return;
        const want = [...users]
          .filter(([, h]) => readable(env, h))
          .map(([id]) => id)
          .sort();
        const got = reply.body.data.map((d: any) => d.id).sort();
        if (JSON.stringify(got) !== JSON.stringify(want))
          failures.push(`users.list ${at(b, env)}: ids ${JSON.stringify(got)} ≠ ${JSON.stringify(want)}`);
        if (reply.body.links.meta.count !== want.length)
          failures.push(`users.list ${at(b, env)}: count ${reply.body.links.meta.count} ≠ ${want.length}`);
        if (reply.headers.get('service-environment') !== (headerOf(env) ?? null))
          failures.push(`users.list ${at(b, env)}: Service-Environment ${reply.headers.get('service-environment')}`);
      },
      async () => {
        const reply = await call('GET', `${account.path}/tokens?page[size]=100`, { token: b.token, environment: headerOf(env) });
        const expected = expectTokenList(b, env);
        const verdict = judge(`tokens.list ${at(b, env)}`, reply, expected);
        if (verdict) return failures.push(verdict);
        if (expected !== 200) return;
        const want = [...tokens]
          .filter(([, t]) => readable(env, t.home, 'tokens') && (administrator(b) || t.ownerUserId === b.userId))
          .map(([id]) => id)
          .sort();
        const got = reply.body.data.map((d: any) => d.id).sort();
        if (JSON.stringify(got) !== JSON.stringify(want))
          failures.push(`tokens.list ${at(b, env)}: ids ${JSON.stringify(got)} ≠ ${JSON.stringify(want)}`);
        if (reply.body.links.meta.count !== want.length)
          failures.push(`tokens.list ${at(b, env)}: count ${reply.body.links.meta.count} ≠ ${want.length}`);
        const shown = reply.body.data.filter((d: any) => 'token' in d.attributes);
        if (shown.length > 0)
          failures.push(
            `tokens.list ${at(b, env)}: listed tokens carry a 'token' attribute (${JSON.stringify(shown.map((d: any) => d.attributes.token))})`,
          );
      },
    ]);
    await pool(tasks);
    expect(failures).toEqual([]);
  });

  it('retrieves: GET /users/<id> and GET /tokens/<id>', async () => {
    const failures: string[] = [];
    const tasks = cells().flatMap(({ b, env }) => [
      ...userTargets().map((t) => async () => {
        const reply = await call('GET', `${account.path}/users/${t.id}`, { token: b.token, environment: headerOf(env) });
        const expected = expectRead(b, env, t);
        const verdict = judge(`users.retrieve ${at(b, env, t.label)}`, reply, expected);
        if (verdict) failures.push(verdict);
        else if (expected === 200 && reply.body.data.id !== t.id) failures.push(`users.retrieve ${at(b, env, t.label)}: wrong record`);
      }),
      ...tokenTargets().map((t) => async () => {
        const reply = await call('GET', `${account.path}/tokens/${t.id}`, { token: b.token, environment: headerOf(env) });
        const expected = expectRead(b, env, t);
        const verdict = judge(`tokens.retrieve ${at(b, env, t.label)}`, reply, expected);
        if (verdict) failures.push(verdict);
        else if (expected === 200 && (reply.body.data.id !== t.id || 'token' in reply.body.data.attributes)) {
          failures.push(`tokens.retrieve ${at(b, env, t.label)}: wrong record or shows a value`);
        }
      }),
    ]);
    await pool(tasks);
    expect(failures).toEqual([]);
  });

  it('updates: PATCH /users/<id> (unchanged value where it should succeed, a changed one where it should not)', async () => {
    const failures: string[] = [];
    const tasks = cells().flatMap(({ b, env }) =>
      userTargets().map((t) => async () => {
        const expected = expectWrite(b, env, t, 200, false);
        if (expected === 200) patched.add(t.id);
        const firstName = expected === 200 ? 'Test' : `Leaked by ${b.name} in ${env}`;
        const reply = await call('PATCH', `${account.path}/users/${t.id}`, {
          token: b.token,
          environment: headerOf(env),
          body: userBody({ firstName }),
        });
        const verdict = judge(`users.update ${at(b, env, t.label)}`, reply, expected);
        if (verdict) failures.push(verdict);
      }),
    );
    await pool(tasks);
    expect(failures).toEqual([]);
  });

  it('deletes: DELETE /users/<id> (admitted bearers act on disposable users)', async () => {
    const failures: string[] = [];
    // Disposable users, one per admitted (bearer, environment, home).
    const plan = cells().flatMap(({ b, env }) => HOMES.map((home) => ({ b, env, home, target: undefined as Target | undefined })));
    await pool(
      plan.map((p) => async () => {
        if (!admitted(p.b, p.env)) {
          // Refused at the door: aim at the fixed record of that home (the check after the matrix shows it survived).
          const fixed = p.home === 'global' ? otherGlobal : homeUser[p.home];
          p.target = { type: 'users', label: `${p.home}-user`, id: fixed.id, home: p.home };
          return;
        }
        const reply = await call('POST', `${account.path}/users`, {
          token: homeAdmin(p.home),
          environment: headerOf(p.home),
          body: userBody({ email: `gone-${randomUUID().slice(0, 8)}@users.example`, firstName: 'Disposable' }),
        });
        expect(reply.status, JSON.stringify(reply.body)).toBe(201);
        users.set(reply.body.data.id, p.home);
        delta.users[p.home]++;
        p.target = {
          type: 'users',
          label: `disposable-${p.home}-user`,
          id: reply.body.data.id,
          home: p.home,
          ownerUserId: reply.body.data.id,
        };
      }),
    );
    await pool(
      plan.map(({ b, env, target }) => async () => {
        const t = target!;
        const expected = expectWrite(b, env, t, 204, true);
        const reply = await call('DELETE', `${account.path}/users/${t.id}`, { token: b.token, environment: headerOf(env) });
        const verdict = judge(`users.delete ${at(b, env, t.label)}`, reply, expected);
        if (verdict) failures.push(verdict);
        if (t.label.startsWith('disposable')) {
          disposable.push({ type: 'users', id: t.id, home: t.home, removed: expected === 204 });
          if (expected === 204) {
            delta.users[t.home]--;
            users.delete(t.id);
          }
        }
      }),
    );
    expect(failures).toEqual([]);
  });

  it('revokes: DELETE /tokens/<id> (admitted bearers act on disposable tokens)', async () => {
    const failures: string[] = [];
    const owners: UserFixture[] = [...HOMES.map((h) => homeUser[h]), otherGlobal];
    const plan = cells().flatMap(({ b, env }) => owners.map((owner) => ({ b, env, owner, target: undefined as Target | undefined })));
    await pool(
      plan.map((p) => async () => {
        const label = p.owner === otherGlobal ? 'other-global-user-token' : `${p.owner.home}-user-token`;
        if (!admitted(p.b, p.env)) {
          p.target = { type: 'tokens', label, id: p.owner.tokenId, home: p.owner.home, ownerUserId: p.owner.id };
          return;
        }
        const login = await call('POST', `${account.path}/tokens`, {
          authorization: basic(p.owner.email, p.owner.password),
          environment: headerOf(p.owner.home),
        });
        expect(login.status, JSON.stringify(login.body)).toBe(201);
        tokens.set(login.body.data.id, { home: p.owner.home, ownerUserId: p.owner.id });
        delta.tokens[p.owner.home]++;
        p.target = { type: 'tokens', label: `disposable-${label}`, id: login.body.data.id, home: p.owner.home, ownerUserId: p.owner.id };
      }),
      6,
    );
    await pool(
      plan.map(({ b, env, target }) => async () => {
        const t = target!;
        const expected = expectWrite(b, env, t, 204, false);
        const reply = await call('DELETE', `${account.path}/tokens/${t.id}`, { token: b.token, environment: headerOf(env) });
        const verdict = judge(`tokens.revoke ${at(b, env, t.label)}`, reply, expected);
        if (verdict) failures.push(verdict);
        if (t.label.startsWith('disposable')) {
          disposable.push({ type: 'tokens', id: t.id, home: t.home, removed: expected === 204 });
          if (expected === 204) {
            delta.tokens[t.home]--;
            tokens.delete(t.id);
          }
        }
      }),
    );
    expect(failures).toEqual([]);
  });

  it("creates: POST /users is born in the request's environment", async () => {
    const failures: string[] = [];
    await pool(
      cells().map(({ b, env }) => async () => {
        const expected = expectUserCreate(b, env);
        const reply = await call('POST', `${account.path}/users`, {
          token: b.token,
          environment: headerOf(env),
          body: userBody({ email: `new-${randomUUID().slice(0, 8)}@users.example` }),
        });
        const verdict = judge(`users.create ${at(b, env)}`, reply, expected);
        if (verdict) failures.push(verdict);
        if (reply.status === 201) {
          const home: Home = env === 'none' ? 'global' : env;
          users.set(reply.body.data.id, envOf(reply.body.data));
          delta.users[envOf(reply.body.data)]++;
          if (envOf(reply.body.data) !== home) failures.push(`users.create ${at(b, env)}: born in ${envOf(reply.body.data)}`);
        }
      }),
    );
    expect(failures).toEqual([]);
  });

  it("logs in: POST /tokens (HTTP Basic) is admitted like a bearer, and the token belongs to the user's home", async () => {
    const failures: string[] = [];
    const who: { name: string; kind: Kind; home: Home; email: string; password: string; id: string }[] = [
      {
        name: 'global-admin',
        kind: 'admin',
        home: 'global',
        email: account.adminEmail,
        password: account.adminPassword,
        id: account.adminId,
      },
      ...HOMES.map((h) => ({
        name: `${h}-user`,
        kind: 'user' as Kind,
        home: h,
        email: homeUser[h].email,
        password: homeUser[h].password,
        id: homeUser[h].id,
      })),
    ];
    await pool(
      who.flatMap((u) =>
        ENVS.map((env) => async () => {
          const expected = admitted(u, env) ? 201 : 401;
          const reply = await call('POST', `${account.path}/tokens`, {
            authorization: basic(u.email, u.password),
            environment: headerOf(env),
          });
          const verdict = judge(`tokens.generate ${u.name} env=${env}`, reply, expected, false);
          if (verdict) failures.push(verdict);
          if (reply.status === 201) {
            const home = envOf(reply.body.data);
            tokens.set(reply.body.data.id, { home, ownerUserId: u.id });
            delta.tokens[home]++;
            if (home !== u.home) failures.push(`tokens.generate ${u.name} env=${env}: token belongs to ${home}, expected ${u.home}`);
            // The new token works where its bearer is admitted, and not where it is not.
            const probe = await call('GET', `${account.path}/tokens?page[size]=1`, {
              token: reply.body.data.attributes.token,
              environment: headerOf(env),
            });
            if (probe.status !== 200) failures.push(`tokens.generate ${u.name} env=${env}: new token refused (${probe.status})`);
          }
        }),
      ),
      6,
    );
    expect(failures).toEqual([]);
  });

  it('afterwards: no record changed or leaked, and counts moved only by what the cells were meant to do', async () => {
    const fixedUsers = [...before.users.keys()];
    const fixedTokens = [...before.tokens.keys()];
    const after = await snapshot(fixedUsers, fixedTokens);
    for (const id of fixedUsers) {
      const was = before.users.get(id);
      const now = after.users.get(id);
      if (patched.has(id)) {
        expect({ ...now.attributes, updated: undefined }, `user ${id}`).toEqual({ ...was.attributes, updated: undefined });
        expect(now.relationships).toEqual(was.relationships);
      } else {
        expect(now, `user ${id} (no successful PATCH)`).toEqual(was);
      }
    }
    for (const id of fixedTokens) expect(after.tokens.get(id), `token ${id}`).toEqual(before.tokens.get(id));
    for (const h of HOMES) {
      expect(after.userCount[h], `users in ${h}`).toBe(before.userCount[h] + delta.users[h]);
      expect(after.tokenCount[h], `tokens in ${h}`).toBe(before.tokenCount[h] + delta.tokens[h]);
    }
    // Disposable records: gone exactly where their cell was meant to remove them.
    const wrong: string[] = [];
    await pool(
      disposable.map((d) => async () => {
        const reply = await call('GET', `${account.path}/${d.type}/${d.id}`, { token: homeAdmin(d.home), environment: headerOf(d.home) });
        if (reply.status !== (d.removed ? 404 : 200))
          wrong.push(`${d.type}/${d.id} in ${d.home}: ${reply.status}, expected ${d.removed ? 404 : 200}`);
      }),
    );
    expect(wrong).toEqual([]);
    // No leaks: each home's administrator lists exactly the records of its reach.
    for (const h of HOMES) {
      const env = h === 'global' ? 'none' : h;
      const reach = (home: Home, type: 'users' | 'tokens' = 'users') => (h === 'C' ? home === 'C' : readable(env as Env, home, type));
      const listedUsers = await listAll('/users', homeAdmin(h), headerOf(h));
      expect(listedUsers.map((d) => d.id).sort(), `users listed in ${h}`).toEqual(
        [...users]
          .filter(([, home]) => reach(home))
          .map(([id]) => id)
          .sort(),
      );
      for (const d of listedUsers) expect(reach(envOf(d)), `user ${d.id} listed in ${h}`).toBe(true);
      const listedTokens = await listAll('/tokens', homeAdmin(h), headerOf(h));
      expect(listedTokens.map((d) => d.id).sort(), `tokens listed in ${h}`).toEqual(
        [...tokens]
          .filter(([, t]) => reach(t.home, 'tokens'))
          .map(([id]) => id)
          .sort(),
      );
    }
    // And every fixed user still has its own first name: no failing PATCH cell wrote.
    for (const [id, doc] of after.users) if (id !== account.adminId) expect(doc.attributes.firstName, `user ${id}`).toBe('Test');
  });
});
