/**
 * Environment isolation for the licensing graph (docs/rules.md §5.2):
 * global, A (ISOLATED) and B (SHARED), each holding a product, policy, license, machine and
 * component. ISOLATED sees only its own; SHARED its own and global (read-only); global only
 * global. Related records must be visible to be used; validation never reveals a license of
 * another environment.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/client.ts';
import { doc, expectCode, licensing, ref } from '../support/licensing.ts';

type Home = 'global' | 'A' | 'B';
const TYPES = ['products', 'policies', 'licenses', 'machines', 'components'] as const;

let account: TestAccount;
let l: ReturnType<typeof licensing>;
const code: Record<Exclude<Home, 'global'>, string> = { A: '', B: '' };
const records = {} as Record<Home, Record<(typeof TYPES)[number], { id: string; attributes: any }>>;
const env = (home: Home) => (home === 'global' ? {} : { environment: code[home] });

beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
  for (const [home, strategy] of [
    ['A', 'ISOLATED'],
    ['B', 'SHARED'],
  ] as const) {
    code[home] = `${home.toLowerCase()}-${randomUUID().slice(0, 8)}`;
    const reply = await call('POST', `${account.path}/environments`, {
      token: account.adminToken,
      body: { data: { type: 'environments', attributes: { name: home, code: code[home], isolationStrategy: strategy } } },
    });
    expect(reply.status).toBe(201);
  }
  await Promise.all(
    (['global', 'A', 'B'] as const).map(async (home) => {
      const g = await l.graph(env(home));
      const component = await l.component(g.machine.id, undefined, env(home));
      records[home] = { products: g.product, policies: g.policy, licenses: g.license, machines: g.machine, components: component };
    }),
  );
});

const VISIBLE: Record<Home, Home[]> = { global: ['global'], A: ['A'], B: ['B', 'global'] };

describe.concurrent('licensing isolation', () => {
  it('retrieve: each environment sees exactly its reach, every type', async () => {
    const failures: string[] = [];
    for (const from of ['global', 'A', 'B'] as const) {
      for (const home of ['global', 'A', 'B'] as const) {
        for (const type of TYPES) {
          const reply = await l.api('GET', `/${type}/${records[home][type].id}`, env(from));
          const expected = VISIBLE[from].includes(home) ? 200 : 404;
          if (reply.status !== expected) failures.push(`${type} of ${home} from ${from}: ${reply.status}, expected ${expected}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('lists: each environment lists exactly its reach, every type', async () => {
    const failures: string[] = [];
    for (const from of ['global', 'A', 'B'] as const) {
      for (const type of TYPES) {
        const reply = await l.api('GET', `/${type}?page[size]=100`, env(from));
        const listed = (reply.body.data as { id: string }[]).map((r) => r.id).sort();
        const expected = VISIBLE[from].map((home) => records[home][type].id).sort();
        if (JSON.stringify(listed) !== JSON.stringify(expected))
          failures.push(`${type} from ${from}: ${listed.length} listed, expected ${expected.length}`);
        if (reply.body.links.meta.count !== expected.length) failures.push(`${type} from ${from}: count ${reply.body.links.meta.count}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('writes: global records are read-only from SHARED (403), invisible from ISOLATED (404)', async () => {
    const bodies: Record<string, unknown> = {
      products: doc('products', { name: 'x' }),
      policies: doc('policies', { name: 'x' }),
      licenses: doc('licenses', { name: 'x' }),
      machines: doc('machines', { name: 'x' }),
      components: doc('components', { name: 'x' }),
    };
    for (const type of TYPES) {
      expectCode(await l.api('PATCH', `/${type}/${records.global[type].id}`, { ...env('B'), body: bodies[type] }), 403);
      expectCode(await l.api('DELETE', `/${type}/${records.global[type].id}`, env('B')), 403);
      expectCode(await l.api('PATCH', `/${type}/${records.global[type].id}`, { ...env('A'), body: bodies[type] }), 404);
      expectCode(await l.api('DELETE', `/${type}/${records.A[type].id}`), 404);
    }
    expect((await l.api('GET', `/products/${records.global.products.id}`)).body.data.attributes.name).toBe(
      records.global.products.attributes.name,
    );
  });

  it('relationships: only records in reach can be used (422 <RELATIONSHIP>_NOT_FOUND)', async () => {
    expectCode(
      await l.api('POST', '/policies', {
        ...env('A'),
        body: doc('policies', { name: 'x' }, { product: ref('products', records.global.products.id) }),
      }),
      422,
      'PRODUCT_NOT_FOUND',
    );
    expectCode(
      await l.api('POST', '/licenses', { body: doc('licenses', {}, { policy: ref('policies', records.A.policies.id) }) }),
      422,
      'POLICY_NOT_FOUND',
    );
    expectCode(
      await l.api('POST', '/machines', {
        ...env('B'),
        body: doc('machines', { fingerprint: 'x' }, { license: ref('licenses', records.A.licenses.id) }),
      }),
      422,
      'LICENSE_NOT_FOUND',
    );
    expectCode(
      await l.api('POST', '/components', {
        ...env('A'),
        body: doc('components', { fingerprint: 'x', name: 'x' }, { machine: ref('machines', records.B.machines.id) }),
      }),
      422,
      'MACHINE_NOT_FOUND',
    );
  });

  it('validate-key never reveals a license of an environment out of reach', async () => {
    const verdict = async (home: Home, from: Home) =>
      (
        await call('POST', `${account.path}/licenses/actions/validate-key`, {
          ...env(from),
          body: { meta: { key: records[home].licenses.attributes.key } },
        })
      ).body.meta.code;
    for (const from of ['global', 'A', 'B'] as const) {
      for (const home of ['global', 'A', 'B'] as const) {
        expect(await verdict(home, from), `${home} from ${from}`).toBe(VISIBLE[from].includes(home) ? 'VALID' : 'NOT_FOUND');
      }
    }
  });

  it('license bearers are admitted like any bearer of their home (key and token)', async () => {
    const key = (home: Home) => ({ authorization: `License ${records[home].licenses.attributes.key}` });
    expect((await l.api('GET', `/licenses/${records.A.licenses.id}`, { ...key('A'), ...env('A') })).status).toBe(200);
    expectCode(await l.api('GET', `/licenses/${records.A.licenses.id}`, key('A')), 401, 'LICENSE_INVALID');
    expectCode(await l.api('GET', `/licenses/${records.A.licenses.id}`, { ...key('A'), ...env('B') }), 401, 'LICENSE_INVALID');
    expect((await l.api('GET', `/licenses/${records.global.licenses.id}`, { ...key('global'), ...env('B') })).status).toBe(200);
    expectCode(await l.api('GET', `/licenses/${records.global.licenses.id}`, { ...key('global'), ...env('A') }), 401, 'LICENSE_INVALID');
    const token = await l.licenseToken(records.B.licenses.id, env('B'));
    expect((await l.api('GET', `/licenses/${records.B.licenses.id}`, { token, ...env('B') })).status).toBe(200);
    expectCode(await l.api('GET', `/licenses/${records.B.licenses.id}`, { token }), 401, 'TOKEN_INVALID');
    const productToken = await l.productToken(records.A.products.id, env('A'));
    expect((await l.api('GET', '/components', { token: productToken, ...env('A') })).body.data.map((c: any) => c.id)).toEqual([
      records.A.components.id,
    ]);
    expectCode(await l.api('GET', '/components', { token: productToken }), 401, 'TOKEN_INVALID');
  });
});

// After the matrix, which counts the global records exactly.
describe('licensing isolation: records hanging on global ones', () => {
  it('SHARED: records may hang on global ones, are born in the environment, and go when the global parent goes', async () => {
    const g = await l.graph();
    const machine = await l.machine(g.license.id, {}, env('B'));
    const component = await l.component(machine.id, undefined, env('B'));
    expect(machine.relationships.environment.data?.type).toBe('environments');
    expectCode(await l.api('GET', `/machines/${machine.id}`), 404);
    expect((await l.api('GET', `/licenses/${g.license.id}/machines`, env('B'))).body.data.map((m: any) => m.id)).toContain(machine.id);
    expect((await l.api('DELETE', `/licenses/${g.license.id}`)).status).toBe(204);
    expectCode(await l.api('GET', `/machines/${machine.id}`, env('B')), 404);
    expectCode(await l.api('GET', `/components/${component.id}`, env('B')), 404);
  });

  // Last: it adds records to B and to global, which the lists above count.
  it("validation finds a fingerprint's machine only where the request may see it: a global license's machine activated in SHARED B matches from B, not from global", async () => {
    const license = records.global.licenses;
    const fingerprint = `b-${randomUUID()}`;
    const machine = await l.machine(license.id, { fingerprint }, env('B'));
    const part = `p-${randomUUID()}`;
    await l.component(machine.id, part, env('B'));
    const verdict = async (from: Home, scope: Record<string, unknown>) => {
      const reply = await call('POST', `${account.path}/licenses/actions/validate-key`, {
        ...env(from),
        body: { meta: { key: license.attributes.key, scope } },
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body.meta.code;
    };
    expect(await verdict('B', { fingerprint })).toBe('VALID');
    expect(await verdict('B', { fingerprint, components: [part] })).toBe('VALID');
    expect(await verdict('global', { fingerprint })).toBe('FINGERPRINT_SCOPE_MISMATCH');
    expect(await verdict('global', { fingerprint, components: [part] })).toBe('FINGERPRINT_SCOPE_MISMATCH');
    expect(await verdict('global', { machine: machine.id })).toBe('MACHINE_SCOPE_MISMATCH');
    expect(await verdict('A', { fingerprint })).toBe('NOT_FOUND');
  });
});

// A SHARED environment reads global records and never changes them (docs/authorization.md): a global
// license's clock starts only from the global environment, whatever the route that would start it.
// After the matrix too: these add global records, which the lists above count.
describe.concurrent('licensing isolation: a global license seen from SHARED keeps its clock unstarted', () => {
  const DAY = 86_400;

  /** A global license for one machine under a new global policy lasting a day from `expirationBasis`. */
  async function globalLicense(expirationBasis: 'FROM_FIRST_VALIDATION' | 'FROM_FIRST_ACTIVATION') {
    const product = await l.product();
    const policy = await l.policy(product.id, { duration: DAY, expirationBasis, maxMachines: 1 });
    return l.license(policy.id);
  }

  /** The license as the account's admin reads it in the global environment. */
  const stored = async (id: string) => (await l.api('GET', `/licenses/${id}`)).body.data.attributes;

  /** The clock started: the expiry is a day after the write that set it. */
  const expectStarted = (attributes: { expiry: string | null; updated: string }) =>
    expect(Date.parse(attributes.expiry ?? '') - Date.parse(attributes.updated)).toBe(DAY * 1000);

  const validateKey = (key: string, from: Home, scope?: Record<string, unknown>) =>
    call('POST', `${account.path}/licenses/actions/validate-key`, { ...env(from), body: { meta: { key, ...(scope ? { scope } : {}) } } });

  it('POST /licenses/<id>/actions/validate with its license token from SHARED: answered unstarted, nothing written; from global it starts', async () => {
    const license = await globalLicense('FROM_FIRST_VALIDATION');
    const token = await l.licenseToken(license.id);
    const validate = (headers: Record<string, string>) =>
      call('POST', `${account.path}/licenses/${license.id}/actions/validate`, { token, headers });
    // Keygen's SDKs name the environment in Keygen-Environment.
    const shared = await validate({ 'keygen-environment': code.B });
    expect(shared.status, JSON.stringify(shared.body)).toBe(200);
    expect(shared.body.meta).toMatchObject({ valid: true, code: 'VALID' });
    expect(shared.body.data.attributes.expiry).toBeNull();
    expect(await stored(license.id)).toMatchObject({ expiry: null, updated: license.attributes.updated });
    const global = await validate({});
    expect(global.body.meta.code).toBe('VALID');
    expectStarted(global.body.data.attributes);
    expect((await stored(license.id)).expiry).toBe(global.body.data.attributes.expiry);
  });

  it('POST /licenses/actions/validate-key without a bearer from SHARED: answered unstarted, nothing written; from global it starts', async () => {
    const license = await globalLicense('FROM_FIRST_VALIDATION');
    const shared = await validateKey(license.attributes.key, 'B');
    expect(shared.status, JSON.stringify(shared.body)).toBe(200);
    expect(shared.body.meta).toMatchObject({ valid: true, code: 'VALID' });
    expect(shared.body.data.attributes.expiry).toBeNull();
    expect(await stored(license.id)).toMatchObject({ expiry: null, updated: license.attributes.updated });
    const global = await validateKey(license.attributes.key, 'global');
    expect(global.body.meta.code).toBe('VALID');
    expectStarted(global.body.data.attributes);
    expect((await stored(license.id)).expiry).toBe(global.body.data.attributes.expiry);
  });

  it('POST /machines from SHARED: the machine is activated and counted, the license stays unstarted; the first global machine starts it', async () => {
    const license = await globalLicense('FROM_FIRST_ACTIVATION');
    const byKey = { authorization: `License ${license.attributes.key}` };
    const machine = await l.machine(license.id, {}, { ...byKey, ...env('B') });
    expect(await stored(license.id)).toMatchObject({ expiry: null, updated: license.attributes.updated });
    // Seen from SHARED: its machine there matches, the license unstarted.
    const shared = await validateKey(license.attributes.key, 'B', { fingerprint: machine.attributes.fingerprint });
    expect(shared.body.meta).toMatchObject({ valid: true, code: 'VALID' });
    expect(shared.body.data.attributes.expiry).toBeNull();
    // The seat it took counts in every environment: the license has no second one.
    expectCode(
      await l.api('POST', '/machines', {
        ...byKey,
        body: doc('machines', { fingerprint: `fp-${randomUUID()}` }, { license: ref('licenses', license.id) }),
      }),
      422,
      'MACHINE_LIMIT_EXCEEDED',
    );
    expect((await l.api('DELETE', `/machines/${machine.id}`, { ...byKey, ...env('B') })).status).toBe(204);
    await l.machine(license.id, {}, byKey);
    expectStarted(await stored(license.id));
  });
});
