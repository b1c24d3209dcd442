/**
 * Attacks on the rules of signed answers, license and machine files, signed keys, the license
 * lifecycle, entitlements, aliases and nested components (docs/rules.md §2, §6.3, §8, §11, §18, §20, §21.2, §25,
 * docs/authorization.md), each made over HTTP as an attacker would make it.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount, newEnvironment, newUser, type TestAccount } from '../support/client.ts';
import { doc, expectCode, licensing, ref } from '../support/licensing.ts';
import { api } from '../support/stack.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;

beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
});

const checkOut = (
  type: 'licenses' | 'machines',
  id: string,
  query = '',
  options: { token?: string; authorization?: string; environment?: string; body?: unknown } = {},
) => l.api('POST', `/${type}/${id}/actions/check-out${query ? `?${query}` : ''}`, options);

const entitlement = async (options: { environment?: string } = {}) => {
  const reply = await l.api('POST', '/entitlements', {
    ...options,
    body: doc('entitlements', { name: 'Feature', code: `f-${randomUUID().slice(0, 12)}` }),
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.data as { id: string; attributes: { code: string } };
};

describe('attacks', () => {
  it('§2.2/§20.2 check-out: malformed ttl, include, encrypt and bodies are 4xx, never 500', async () => {
    const g = await l.graph();
    const statuses: string[] = [];
    for (const query of [
      'ttl=abc',
      'ttl=1e5',
      'ttl=3600.5',
      'ttl=-1',
      'ttl=99999999999999999999999',
      'ttl=0x1000',
      'ttl[]=3600',
      'include[]=owner',
      'include=__proto__',
      'include=constructor',
      'include=license',
      'encrypt=yes',
      'algorithm=',
      'ttl=3600&ttl=7200',
    ]) {
      const reply = await checkOut('licenses', g.license.id, query);
      if (reply.status >= 500 || reply.status === 200)
        statuses.push(`${query}: ${reply.status} ${JSON.stringify(reply.body?.errors?.[0] ?? '')}`);
    }
    for (const meta of [
      { ttl: '3600' },
      { ttl: 3600.5 },
      { ttl: 1e308 },
      { ttl: -3600 },
      { ttl: true },
      { include: 'owner' },
      { include: [1] },
      { include: [null] },
      { include: [['owner']] },
      { include: Array.from({ length: 10_000 }, () => 'owner') },
      { encrypt: 'true' },
      { algorithm: 5 },
      { algorithm: null },
      { ttl: 2 ** 53 },
    ]) {
      const reply = await checkOut('licenses', g.license.id, '', { body: { meta } });
      if (reply.status >= 500) statuses.push(`${JSON.stringify(meta).slice(0, 60)}: ${reply.status}`);
    }
    for (const body of [{ meta: null }, { meta: [] }, { data: {} }, [], 'x', null, { meta: { __proto__: { ttl: 1 } } }]) {
      const reply = await checkOut('licenses', g.license.id, '', { body });
      if (reply.status >= 500) statuses.push(`${JSON.stringify(body)}: ${reply.status}`);
    }
    expect(statuses).toEqual([]);
  });

  it('§20.2 check-out by GET: a malformed query is 4xx, never 500', async () => {
    const g = await l.graph();
    const out: string[] = [];
    for (const query of [
      'ttl=abc',
      'include=nope',
      'encrypt=maybe',
      'ttl=%',
      'include=%E0%A4%A',
      'ttl=3600&include=owner&include=policy',
    ]) {
      const reply = await call('GET', `${account.path}/machines/${g.machine.id}/actions/check-out?${query}`, {
        token: account.adminToken,
        headers: { accept: 'application/octet-stream' },
      });
      if (reply.status >= 500 || reply.status === 200) out.push(`${query}: ${reply.status}`);
    }
    expect(out).toEqual([]);
  });

  it('§20.3 includes: a license or product bearer may not include owner, license.owner or environment (403)', async () => {
    const env = await newEnvironment(account, 'ISOLATED');
    const owner = await newUser(account, {}, { environment: env.code });
    const g = await l.graph({ environment: env.code, owner: owner.id });
    const token = await l.licenseToken(g.license.id, { environment: env.code });
    const product = await l.productToken(g.product.id, { environment: env.code });
    const out: string[] = [];
    const tries: [string, 'licenses' | 'machines', string, string][] = [
      ['license owner', 'licenses', g.license.id, 'include=owner'],
      ['license env', 'licenses', g.license.id, 'include=environment'],
      ['license machine license.owner', 'machines', g.machine.id, 'include=license.owner'],
      ['license machine owner', 'machines', g.machine.id, 'include=owner'],
      ['license machine env', 'machines', g.machine.id, 'include=environment'],
    ];
    for (const [name, type, id, query] of tries) {
      for (const [who, bearer] of [
        ['license', token],
        ['product', product],
      ]) {
        const reply = await checkOut(type, id, query, { token: bearer, environment: env.code });
        if (reply.status !== 403) out.push(`${who} ${name}: ${reply.status}`);
      }
    }
    const byKey = await checkOut('licenses', g.license.id, 'include=owner', {
      authorization: `License ${g.license.attributes.key}`,
      environment: env.code,
    });
    if (byKey.status !== 403) out.push(`key owner: ${byKey.status}`);
    expect(out).toEqual([]);
  });

  it('§11.2 aliases: another license is 404 by id, key or fingerprint to a license token, its key and a user, check-out included', async () => {
    const mine = await newUser(account);
    const a = await l.graph({ owner: mine.id });
    const b = await l.graph();
    const token = await l.licenseToken(a.license.id);
    const out: string[] = [];
    const bearers: [string, { token?: string; authorization?: string }][] = [
      ['license token', { token }],
      ['license key', { authorization: `License ${a.license.attributes.key}` }],
      ['user', { token: mine.token }],
    ];
    for (const [who, creds] of bearers) {
      for (const path of [
        `/licenses/${b.license.id}/entitlements`,
        `/licenses/${encodeURIComponent(b.license.attributes.key)}/entitlements`,
        `/licenses/${encodeURIComponent(b.license.attributes.key)}`,
        `/licenses/${encodeURIComponent(b.license.attributes.key)}/owner`,
        `/machines/${encodeURIComponent(b.machine.attributes.fingerprint)}`,
        `/machines/${encodeURIComponent(b.machine.attributes.fingerprint)}/license`,
        `/machines/${encodeURIComponent(b.machine.attributes.fingerprint)}/components`,
      ]) {
        const reply = await l.api('GET', path, creds);
        if (reply.status !== 404) out.push(`${who} GET ${path}: ${reply.status}`);
      }
      for (const [type, id] of [
        ['licenses', b.license.id],
        ['machines', b.machine.id],
        ['licenses', b.license.attributes.key],
        ['machines', b.machine.attributes.fingerprint],
      ] as const) {
        const reply = await checkOut(type, encodeURIComponent(id), '', creds);
        if (reply.status === 200 || reply.status >= 500) out.push(`${who} check-out ${type}/${id.slice(0, 8)}: ${reply.status}`);
      }
    }
    expect(out).toEqual([]);
  });

  it('§11.2 aliases: a key or fingerprint of another environment answers as one that does not exist, License <key> too', async () => {
    const envA = await newEnvironment(account, 'ISOLATED');
    const envB = await newEnvironment(account, 'ISOLATED');
    const g = await l.graph({ environment: envB.code });
    const key = encodeURIComponent(g.license.attributes.key);
    const fp = encodeURIComponent(g.machine.attributes.fingerprint);
    const out: string[] = [];
    for (const [path, method] of [
      [`/licenses/${key}`, 'GET'],
      [`/licenses/${key}`, 'PATCH'],
      [`/licenses/${key}`, 'DELETE'],
      [`/licenses/${key}/entitlements`, 'GET'],
      [`/licenses/${key}/entitlements`, 'POST'],
      [`/machines/${fp}`, 'GET'],
      [`/machines/${fp}`, 'DELETE'],
    ] as const) {
      const body =
        method === 'PATCH'
          ? doc('licenses', { name: 'x' })
          : method === 'POST'
            ? { data: [{ type: 'entitlements', id: randomUUID() }] }
            : undefined;
      const there = await l.api(method, path, { environment: envA.code, body });
      const nothing = await l.api(method, path.replace(key, `nokey${randomUUID()}`).replace(fp, `nofp${randomUUID()}`), {
        environment: envA.code,
        body,
      });
      if (there.status !== nothing.status || there.body?.errors?.[0]?.code !== nothing.body?.errors?.[0]?.code)
        out.push(`${method} ${path.slice(0, 30)}: ${there.status} vs ${nothing.status}`);
    }
    // License <key> of another environment
    const s = await l.api('POST', `/licenses/${g.license.id}/actions/suspend`, { environment: envB.code });
    expect(s.status).toBe(200);
    const foreign = await l.api('GET', '/me', { authorization: `License ${g.license.attributes.key}`, environment: envA.code });
    const unknown = await l.api('GET', '/me', { authorization: `License nokey-${randomUUID()}`, environment: envA.code });
    if (foreign.status !== unknown.status) out.push(`License <key> elsewhere: ${foreign.status} vs ${unknown.status}`);
    const globalFromB = await l.api('GET', '/me', { authorization: `License ${g.license.attributes.key}` });
    if (globalFromB.status !== 401) out.push(`License <key> from global: ${globalFromB.status}`);
    expect(out).toEqual([]);
  });

  it('§6.3 standing: a suspended or REVOKE_ACCESS-expired license authenticates through no route', async () => {
    const g = await l.graph();
    const token = await l.licenseToken(g.license.id);
    const s = await l.api('POST', `/licenses/${g.license.id}/actions/suspend`);
    expect(s.status).toBe(200);
    const exp = await l.graph({
      policy: { expirationStrategy: 'REVOKE_ACCESS' },
      license: { expiry: new Date(Date.now() - 60_000).toISOString() },
    });
    const expToken = await l.licenseToken(exp.license.id);
    const out: string[] = [];
    for (const [who, creds, lic] of [
      ['suspended token', { token }, g],
      ['suspended key', { authorization: `License ${g.license.attributes.key}` }, g],
      ['suspended key lower', { authorization: `license   ${g.license.attributes.key}` }, g],
      ['expired token', { token: expToken }, exp],
      ['expired key', { authorization: `License ${exp.license.attributes.key}` }, exp],
    ] as const) {
      for (const [method, path, body] of [
        ['GET', '/me', undefined],
        ['POST', `/licenses/${lic.license.id}/actions/check-out`, undefined],
        ['GET', `/licenses/${lic.license.id}/actions/check-out`, undefined],
        ['POST', `/machines/${lic.machine.id}/actions/check-out`, undefined],
        ['POST', `/licenses/${lic.license.id}/actions/validate`, undefined],
        ['GET', `/licenses/${encodeURIComponent(lic.license.attributes.key)}`, undefined],
        ['GET', `/licenses/${lic.license.id}/entitlements`, undefined],
        ['GET', '/entitlements', undefined],
        ['POST', '/machines', doc('machines', { fingerprint: randomUUID() }, { license: ref('licenses', lic.license.id) })],
        ['GET', '/tokens', undefined],
      ] as const) {
        const reply = await l.api(method, path, { ...creds, body, ...(method === 'GET' && path.endsWith('check-out') ? {} : {}) });
        if (reply.status !== 403) out.push(`${who} ${method} ${path.slice(0, 50)}: ${reply.status}`);
      }
      // validate-key reads no credential: it answers the standing as a verdict, never VALID
      const verdict = await l.api('POST', '/licenses/actions/validate-key', {
        ...creds,
        body: { meta: { key: lic.license.attributes.key } },
      });
      if (verdict.status !== 200 || verdict.body.meta.valid !== false)
        out.push(`${who} validate-key: ${JSON.stringify(verdict.body.meta)}`);
    }
    expect(out).toEqual([]);
  });

  it('§25.2 attachments: a product token reaches no other product’s licenses, policies, files or lifecycle', async () => {
    const a = await l.graph();
    const b = await l.graph();
    const e = await entitlement();
    const tokenA = await l.productToken(a.product.id);
    const out: string[] = [];
    for (const [method, path, body] of [
      ['POST', `/licenses/${b.license.id}/entitlements`, { data: [{ type: 'entitlements', id: e.id }] }],
      ['POST', `/licenses/${encodeURIComponent(b.license.attributes.key)}/entitlements`, { data: [{ type: 'entitlements', id: e.id }] }],
      ['POST', `/policies/${b.policy.id}/entitlements`, { data: [{ type: 'entitlements', id: e.id }] }],
      ['GET', `/licenses/${encodeURIComponent(b.license.attributes.key)}/entitlements`, undefined],
      ['POST', `/licenses/${b.license.id}/actions/suspend`, undefined],
      ['POST', `/licenses/${b.license.id}/actions/renew`, undefined],
      ['DELETE', `/licenses/${b.license.id}/actions/revoke`, undefined],
      ['POST', `/licenses/${b.license.id}/actions/check-out`, undefined],
      ['POST', `/machines/${b.machine.id}/actions/check-out`, undefined],
      ['GET', `/machines/${encodeURIComponent(b.machine.attributes.fingerprint)}`, undefined],
    ] as const) {
      const reply = await l.api(method, path, { token: tokenA, body });
      if (reply.status !== 404) out.push(`${method} ${path.slice(0, 40)}: ${reply.status}`);
    }
    // its own license with the other product's policy entitlement path? attach to its own license works
    const own = await l.api('POST', `/licenses/${a.license.id}/entitlements`, {
      token: tokenA,
      body: { data: [{ type: 'entitlements', id: e.id }] },
    });
    if (own.status !== 200) out.push(`own attach: ${own.status}`);
    expect(out).toEqual([]);
  });

  it('§25.2 attachments: an entitlement of another environment or account is ENTITLEMENT_NOT_FOUND', async () => {
    const envA = await newEnvironment(account, 'ISOLATED');
    const envB = await newEnvironment(account, 'ISOLATED');
    const shared = await newEnvironment(account, 'SHARED');
    const inA = await l.graph({ environment: envA.code });
    const global = await l.graph();
    const eB = await entitlement({ environment: envB.code });
    const eShared = await entitlement({ environment: shared.code });
    const other = await newAccount();
    const lo = licensing(other);
    const reply0 = await lo.api('POST', '/entitlements', {
      body: doc('entitlements', { name: 'x', code: `o-${randomUUID().slice(0, 8)}` }),
    });
    const eOther = reply0.body.data;
    const out: string[] = [];
    for (const [what, path, env, id] of [
      ['B→A license', `/licenses/${inA.license.id}/entitlements`, envA.code, eB.id],
      ['B→A policy', `/policies/${inA.policy.id}/entitlements`, envA.code, eB.id],
      ['shared→global license', `/licenses/${global.license.id}/entitlements`, undefined, eShared.id],
      ['shared→global policy', `/policies/${global.policy.id}/entitlements`, undefined, eShared.id],
      ['other account', `/licenses/${global.license.id}/entitlements`, undefined, eOther.id],
    ] as const) {
      const reply = await l.api('POST', path, { environment: env, body: { data: [{ type: 'entitlements', id }] } });
      if (reply.status !== 422) out.push(`${what}: ${reply.status} ${JSON.stringify(reply.body?.errors?.[0]?.code)}`);
    }
    expect(out).toEqual([]);
  });

  it('§25.1 entitlements: a user reads only those of licenses they own', async () => {
    const alice = await newUser(account);
    const bob = await newUser(account);
    const a = await l.graph({ owner: alice.id });
    const b = await l.graph({ owner: bob.id });
    const e = await entitlement();
    const att = await l.api('POST', `/licenses/${b.license.id}/entitlements`, { body: { data: [{ type: 'entitlements', id: e.id }] } });
    expect(att.status).toBe(200);
    const out: string[] = [];
    const one = await l.api('GET', `/entitlements/${e.id}`, { token: alice.token });
    if (one.status !== 404) out.push(`alice GET entitlement: ${one.status}`);
    const list = await l.api('GET', '/entitlements', { token: alice.token });
    if (list.body.data?.some((x: { id: string }) => x.id === e.id)) out.push('alice lists it');
    const co = await checkOut('licenses', a.license.id, 'include=entitlements', { token: alice.token });
    if (co.status !== 200) out.push(`own check-out: ${co.status}`);
    const rv = await l.api('POST', `/licenses/${b.license.id}/actions/renew`, { token: alice.token });
    if (rv.status !== 404) out.push(`renew other: ${rv.status}`);
    // a license token reading entitlements by filter
    const lt = await l.licenseToken(a.license.id);
    const byCode = await l.api('POST', `/licenses/${a.license.id}/actions/validate`, {
      token: lt,
      body: { meta: { scope: { entitlements: [e.attributes.code] } } },
    });
    if (byCode.body?.meta?.valid !== false) out.push(`validate with other's code: ${JSON.stringify(byCode.body?.meta)}`);
    expect(out).toEqual([]);
  });

  it('§18.5 protected: its owner renews, revokes, checks out, activates and deactivates nothing', async () => {
    const owner = await newUser(account);
    const g = await l.graph({ owner: owner.id, policy: { duration: 86400 * 30 }, license: { protected: true } });
    const out: string[] = [];
    for (const [method, path] of [
      ['POST', `/licenses/${g.license.id}/actions/renew`],
      ['POST', `/licenses/${encodeURIComponent(g.license.attributes.key)}/actions/renew`],
      ['POST', `/licenses/${g.license.id}/actions/check-out`],
      ['GET', `/licenses/${g.license.id}/actions/check-out`],
      ['POST', `/machines/${g.machine.id}/actions/check-out`],
      ['DELETE', `/machines/${encodeURIComponent(g.machine.attributes.fingerprint)}`],
      ['POST', `/licenses/${g.license.id}/tokens`],
      ['DELETE', `/licenses/${g.license.id}/actions/revoke`],
    ] as const) {
      const reply = await l.api(method, path, { token: owner.token });
      if (reply.status !== 403 && reply.status !== 404) out.push(`${method} ${path.slice(0, 50)}: ${reply.status}`);
      if (reply.status === 404 && !path.includes(encodeURIComponent(g.license.attributes.key)))
        out.push(`${method} ${path.slice(0, 50)}: 404`);
    }
    // component on its machine
    const c = await l.api('POST', '/components', {
      token: owner.token,
      body: doc('components', { fingerprint: 'x', name: 'x' }, { machine: ref('machines', g.machine.id) }),
    });
    if (c.status !== 403) out.push(`component create: ${c.status}`);
    const m = await l.api('POST', '/machines', {
      token: owner.token,
      body: doc('machines', { fingerprint: randomUUID() }, { license: ref('licenses', g.license.id) }),
    });
    if (m.status !== 403) out.push(`machine create: ${m.status}`);
    expect(out).toEqual([]);
  });

  it('§21.2 nested components: limits, shape and component.create hold as for POST /components', async () => {
    const g = await l.graph();
    const out: string[] = [];
    const make = (components: unknown[], creds: { token?: string } = {}) =>
      l.api('POST', '/machines', {
        ...creds,
        body: {
          data: {
            type: 'machines',
            attributes: { fingerprint: `m-${randomUUID()}` },
            relationships: { license: ref('licenses', g.license.id), components: { data: components } },
          },
        },
      });
    const c = (attributes: Record<string, unknown>) => ({
      type: 'components',
      attributes: { fingerprint: randomUUID(), name: 'n', ...attributes },
    });
    const cases: [string, unknown[], number][] = [
      ['21', Array.from({ length: 21 }, () => c({})), 400],
      ['fp too long', [c({ fingerprint: 'x'.repeat(4097) })], 422],
      ['name too long', [c({ name: 'x'.repeat(256) })], 422],
      ['metadata keys', [c({ metadata: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i])) })], 422],
      ['metadata size', [c({ metadata: { a: 'x'.repeat(17 * 1024) } })], 422],
      ['dup', [c({ fingerprint: 'dup' }), c({ fingerprint: 'dup' })], 422],
      ['dup case', [c({ fingerprint: 'Dup' }), c({ fingerprint: 'dup' })], 201],
      ['blank fp', [c({ fingerprint: '' })], 400],
      ['no name', [{ type: 'components', attributes: { fingerprint: 'a' } }], 400],
      ['id given', [{ type: 'components', id: randomUUID(), attributes: { fingerprint: 'a', name: 'a' } }], 400],
      [
        'relationships',
        [{ type: 'components', attributes: { fingerprint: 'a', name: 'a' }, relationships: { machine: ref('machines', g.machine.id) } }],
        400,
      ],
      ['wrong type', [{ type: 'machines', attributes: { fingerprint: 'a', name: 'a' } }], 400],
      ['null', [null], 400],
      ['empty', [], 201],
    ];
    for (const [name, components, expected] of cases) {
      const reply = await make(components);
      if (reply.status !== expected)
        out.push(`${name}: ${reply.status} (expected ${expected}) ${JSON.stringify(reply.body?.errors?.[0] ?? '')}`);
    }
    // 20 with 16 KB metadata each (a large transaction)
    const big = await make(Array.from({ length: 20 }, () => c({ metadata: { a: 'x'.repeat(15 * 1024) } })));
    if (big.status >= 500) out.push(`20 x 15 KB metadata: ${big.status}`);
    // component.create missing
    const narrowed = await l.api('POST', `/licenses/${g.license.id}/tokens`, {
      body: { data: { type: 'tokens', attributes: { permissions: ['machine.create', 'machine.read'] } } },
    });
    expect(narrowed.status).toBe(200);
    const refused = await make([c({})], { token: narrowed.body.data.attributes.token });
    if (refused.status !== 403) out.push(`without component.create: ${refused.status}`);
    expect(out).toEqual([]);
  });

  it('§23.2 counts: concurrent deletes of one component release its fingerprint once', async () => {
    const pol = await l.policy((await l.product()).id, { componentUniquenessStrategy: 'UNIQUE_PER_ACCOUNT' });
    const lic = await l.license(pol.id);
    const [m1, m2, m3] = await Promise.all([l.machine(lic.id), l.machine(lic.id), l.machine(lic.id)]);
    const fp = `u-${randomUUID()}`;
    const comp = await l.component(m1.id, fp);
    const deletes = await Promise.all(Array.from({ length: 8 }, () => l.api('DELETE', `/components/${comp.id}`)));
    expect(deletes.filter((r) => r.status === 204)).toHaveLength(1);
    const second = await l.api('POST', '/components', {
      body: doc('components', { fingerprint: fp, name: 'x' }, { machine: ref('machines', m2.id) }),
    });
    expect(second.status).toBe(201);
    const third = await l.api('POST', '/components', {
      body: doc('components', { fingerprint: fp, name: 'x' }, { machine: ref('machines', m3.id) }),
    });
    expectCode(third, 422, 'FINGERPRINT_TAKEN');
  });

  it('§8 signatures: malformed Keygen-Accept-Signature is 400, and answers of a known account are signed', async () => {
    const out: string[] = [];
    for (const header of [
      'algorithm="ed25519", algorithm="ed25519"',
      `keyid="${account.id}", algorithm="rsa-sha256"`,
      'algorithm=ed25519',
      '',
      ' ',
      'algorithm="ed25519",',
      `keyid="${account.slug}", algorithm="ed25519"`,
      'algorithm="ed25519", headers="date"',
      `algorithm="ed25519"\u0000`,
    ]) {
      const response = await api(`${account.path}/products`, {
        headers: { authorization: `Bearer ${account.adminToken}`, 'keygen-accept-signature': header, accept: 'application/json' },
      }).catch((error) => error as Error);
      if (response instanceof Error) continue;
      if (response.status !== 400) out.push(`${JSON.stringify(header)}: ${response.status}`);
      if (!response.headers.get('keygen-signature')) out.push(`${JSON.stringify(header)}: unsigned`);
    }
    // the slug account: accepted?
    // unsigned answers for a known account
    for (const [method, path, init] of [
      ['PUT', `${account.path}/products`, {}],
      ['GET', `${account.path}/products/${randomUUID()}/nothing`, {}],
      ['POST', `${account.path}/products`, { body: '{', headers: { 'content-type': 'application/json' } }],
      ['GET', `${account.path}/products?page[size]=abc`, {}],
      ['HEAD', `${account.path}/products`, {}],
      ['OPTIONS', `${account.path}/products`, {}],
      ['GET', `${account.path.toUpperCase().replace('/V1/ACCOUNTS', '/v1/accounts')}/products`, {}],
    ] as const) {
      const response = await api(path, {
        method,
        ...init,
        headers: { authorization: `Bearer ${account.adminToken}`, accept: 'application/json', ...('headers' in init ? init.headers : {}) },
      });
      if (!response.headers.get('keygen-signature')) out.push(`${method} ${path.slice(-30)}: ${response.status} unsigned`);
    }
    expect(out).toEqual([]);
  });

  it('§2.2 faults: odd paths and bodies on lifecycle, alias, attachment and /me routes are never 500', async () => {
    const g = await l.graph({ policy: { duration: 86400 } });
    const out: string[] = [];
    for (const [method, path, body] of [
      ['POST', `/licenses/${g.license.id}/actions/renew`, { meta: { x: 1 } }],
      ['POST', `/licenses/${g.license.id}/actions/suspend`, []],
      ['POST', `/licenses/${g.license.id}/actions/reinstate`, 'x'],
      ['DELETE', `/licenses/${randomUUID()}/actions/revoke`, undefined],
      ['POST', `/licenses/${'x'.repeat(5000)}/actions/renew`, undefined],
      ['GET', `/licenses/${'x'.repeat(5000)}`, undefined],
      ['GET', `/machines/${'x'.repeat(5000)}`, undefined],
      ['GET', `/licenses/%00`, undefined],
      ['GET', `/machines/%FF`, undefined],
      ['GET', `/licenses/%E0%A4%A`, undefined],
      ['GET', `/licenses/${'a'.repeat(2048)}/entitlements`, undefined],
      ['POST', `/licenses/${g.license.id}/entitlements`, { data: [{ type: 'entitlements', id: 'not-a-uuid' }] }],
      ['POST', `/licenses/${g.license.id}/entitlements`, { data: { type: 'entitlements', id: randomUUID() } }],
      ['DELETE', `/licenses/${g.license.id}/entitlements`, { data: [{ type: 'entitlements', id: randomUUID().toUpperCase() }] }],
      ['GET', `/me?include=owner`, undefined],
      ['GET', `/me?x=1`, undefined],
      ['GET', `/licenses/${g.license.id}/entitlements?page[size]=0`, undefined],
      ['GET', `/licenses/${g.license.id}/entitlements?page[number]=99999999999`, undefined],
    ] as const) {
      const reply = await l.api(method, path, { body }).catch((e) => ({ status: 599, body: String(e) }) as never);
      if (reply.status >= 500) out.push(`${method} ${path.slice(0, 50)}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`);
    }
    expect(out).toEqual([]);
  });
});
