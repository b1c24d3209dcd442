/**
 * License validation with components (docs/rules.md §23.3, §19.4):
 * POST /licenses/actions/validate-key (no bearer) and POST /licenses/<id>/actions/validate,
 * and what binds an answer to its request: its time, the nonce and the scope echoed.
 */
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, newAccount, newEnvironment, newUser, type TestAccount } from '../support/client.ts';
import { expectCode, licensing } from '../support/licensing.ts';
import { table, tableName } from '../support/table.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
});

type Scope = { fingerprint?: string; components?: string[]; product?: string; policy?: string };
const validateKey = (key: string, scope?: Scope, options: { environment?: string } = {}) =>
  call('POST', `${account.path}/licenses/actions/validate-key`, { ...options, body: { meta: { key, ...(scope ? { scope } : {}) } } });
/** The verdict's code, the verdict checked for its shape (its time, nonce and scope are checked below). */
const code = (reply: { status: number; body: any }) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  const { ts, nonce, scope, ...verdict } = reply.body.meta;
  expect(ts).toEqual(expect.any(String));
  expect(verdict).toEqual({ valid: reply.body.meta.code === 'VALID', detail: expect.any(String), code: expect.any(String) });
  return reply.body.meta.code as string;
};

/** A license whose one machine has components a, b, c, d under `strategy`. */
async function fingerprinted(strategy: string, policy: Record<string, unknown> = {}) {
  const g = await l.graph({ policy: { componentMatchingStrategy: strategy, ...policy } });
  const parts = ['a', 'b', 'c', 'd'].map((p) => `${p}-${randomUUID()}`);
  for (const part of parts) await l.component(g.machine.id, part);
  return { ...g, key: g.license.attributes.key as string, fingerprint: g.machine.attributes.fingerprint as string, parts };
}

describe.concurrent('validate-key', () => {
  it('VALID with the license document and meta, without any bearer', async () => {
    const g = await l.graph();
    const reply = await validateKey(g.license.attributes.key);
    expect(code(reply)).toBe('VALID');
    expect(reply.body.meta.valid).toBe(true);
    expect(reply.body.data.id).toBe(g.license.id);
    expect(code(await validateKey(g.license.attributes.key, { fingerprint: g.machine.attributes.fingerprint }))).toBe('VALID');
  });

  it('NOT_FOUND with data null for an unknown key', async () => {
    const reply = await validateKey(`nope-${randomUUID()}`);
    expect(code(reply)).toBe('NOT_FOUND');
    expect(reply.body.data).toBeNull();
    expect(reply.body.meta.valid).toBe(false);
  });

  it('EXPIRED and SUSPENDED', async () => {
    const g = await l.graph({ license: { expiry: new Date(Date.now() - 1000).toISOString() } });
    expect(code(await validateKey(g.license.attributes.key))).toBe('EXPIRED');
    const s = await l.graph({ license: { suspended: true } });
    expect(code(await validateKey(s.license.attributes.key))).toBe('SUSPENDED');
    expect(s.license.attributes.status).toBe('SUSPENDED');
    expect(g.license.attributes.status).toBe('EXPIRED');
  });

  it('PRODUCT_SCOPE_MISMATCH and POLICY_SCOPE_MISMATCH, VALID when they match', async () => {
    const g = await l.graph();
    const key = g.license.attributes.key;
    expect(code(await validateKey(key, { product: randomUUID() }))).toBe('PRODUCT_SCOPE_MISMATCH');
    expect(code(await validateKey(key, { policy: randomUUID() }))).toBe('POLICY_SCOPE_MISMATCH');
    expect(code(await validateKey(key, { product: g.product.id, policy: g.policy.id }))).toBe('VALID');
  });

  it('NO_MACHINE (node-locked), NO_MACHINES (floating) and FINGERPRINT_SCOPE_MISMATCH', async () => {
    const p = await l.product();
    const floating = await l.license((await l.policy(p.id)).id);
    expect(code(await validateKey(floating.attributes.key, { fingerprint: 'anything' }))).toBe('NO_MACHINES');
    const lic = await l.license((await l.policy(p.id, { maxMachines: 1 })).id);
    expect(code(await validateKey(lic.attributes.key, { fingerprint: 'anything' }))).toBe('NO_MACHINE');
    await l.machine(lic.id, { fingerprint: 'known' });
    expect(code(await validateKey(lic.attributes.key, { fingerprint: 'unknown' }))).toBe('FINGERPRINT_SCOPE_MISMATCH');
    expect(code(await validateKey(lic.attributes.key, { fingerprint: 'known' }))).toBe('VALID');
  });

  it('FINGERPRINT_SCOPE_REQUIRED, COMPONENTS_SCOPE_REQUIRED, COMPONENTS_SCOPE_EMPTY', async () => {
    const f = await fingerprinted('MATCH_ANY', { requireComponentsScope: true });
    expect(code(await validateKey(f.key, { components: f.parts }))).toBe('FINGERPRINT_SCOPE_REQUIRED');
    expect(code(await validateKey(f.key, { fingerprint: f.fingerprint }))).toBe('COMPONENTS_SCOPE_REQUIRED');
    expect(code(await validateKey(f.key))).toBe('COMPONENTS_SCOPE_REQUIRED');
    expect(code(await validateKey(f.key, { fingerprint: f.fingerprint, components: [] }))).toBe('COMPONENTS_SCOPE_EMPTY');
    expect(code(await validateKey(f.key, { fingerprint: f.fingerprint, components: [f.parts[0]!] }))).toBe('VALID');
  });

  it('body shape: missing meta.key → 400', async () => {
    const reply = await call('POST', `${account.path}/licenses/actions/validate-key`, { body: { meta: {} } });
    expect(expectCode(reply, 400).source).toEqual({ pointer: '/meta/key' });
  });
});

describe.concurrent('lastValidated (docs/rules.md §19.5)', () => {
  it("a validation, whatever its verdict, sets it to the verdict's time; one within the next minute leaves it; updated stays", async () => {
    const g = await l.graph();
    expect(g.license.attributes.lastValidated).toBeNull();
    const first = await validateKey(g.license.attributes.key, { fingerprint: `fp-${randomUUID()}` });
    expect(code(first)).toBe('FINGERPRINT_SCOPE_MISMATCH');
    expect(first.body.data.attributes.lastValidated).toBe(first.body.meta.ts);
    const second = await l.api('POST', `/licenses/${g.license.id}/actions/validate`);
    expect(code(second)).toBe('VALID');
    expect(second.body.data.attributes.lastValidated).toBe(first.body.meta.ts);
    const read = await l.api('GET', `/licenses/${g.license.id}`);
    expect(read.body.data.attributes).toMatchObject({
      lastValidated: first.body.meta.ts,
      updated: g.license.attributes.updated,
      status: 'ACTIVE',
    });
  });

  it('a validation more than a minute after the one noted notes its own', async () => {
    const g = await l.graph();
    // As if the license had last been validated a minute and a second ago.
    await table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: `A#${account.id}#LICENSE#${g.license.id}`, SK: '#' },
        UpdateExpression: 'SET lastValidated = :at',
        ExpressionAttributeValues: { ':at': new Date(Date.now() - 61_000).toISOString() },
      }),
    );
    const validated = await validateKey(g.license.attributes.key);
    expect(validated.body.data.attributes.lastValidated).toBe(validated.body.meta.ts);
    expect((await l.api('GET', `/licenses/${g.license.id}`)).body.data.attributes.lastValidated).toBe(validated.body.meta.ts);
  });

  it('a global license validated from inside a SHARED environment keeps it: the environment only reads it', async () => {
    const shared = await newEnvironment(account, 'SHARED');
    const g = await l.graph();
    const seen = await validateKey(g.license.attributes.key, undefined, { environment: shared.code });
    expect(code(seen)).toBe('VALID');
    expect(seen.body.data.attributes.lastValidated).toBeNull();
    expect((await l.api('GET', `/licenses/${g.license.id}`)).body.data.attributes.lastValidated).toBeNull();
  });
});

describe.concurrent('matching strategies (machine with 4 components)', () => {
  // matched → expected code, per strategy: any ≥ 1, two ≥ 2, most ≥ 2 (half of 4), all = 4
  const CASES: Record<string, [number, string][]> = {
    MATCH_ANY: [
      [0, 'COMPONENTS_SCOPE_MISMATCH'],
      [1, 'VALID'],
      [4, 'VALID'],
    ],
    MATCH_TWO: [
      [1, 'COMPONENTS_SCOPE_MISMATCH'],
      [2, 'VALID'],
      [3, 'VALID'],
    ],
    MATCH_MOST: [
      [1, 'COMPONENTS_SCOPE_MISMATCH'],
      [2, 'VALID'],
      [3, 'VALID'],
    ],
    MATCH_ALL: [
      [3, 'COMPONENTS_SCOPE_MISMATCH'],
      [4, 'VALID'],
    ],
  };
  for (const [strategy, cases] of Object.entries(CASES)) {
    it(`${strategy}: ${cases.map(([n, c]) => `${n} matched → ${c}`).join(', ')}`, async () => {
      const f = await fingerprinted(strategy);
      for (const [matched, expected] of cases) {
        const given = [...f.parts.slice(0, matched), `stranger-${randomUUID()}`, `other-${randomUUID()}`];
        expect(code(await validateKey(f.key, { fingerprint: f.fingerprint, components: given })), `${strategy} ${matched}`).toBe(expected);
      }
    });
  }

  it('MATCH_MOST rounds half up: 3 components need 2', async () => {
    const g = await l.graph({ policy: { componentMatchingStrategy: 'MATCH_MOST' } });
    const parts = ['x', 'y', 'z'].map((p) => `${p}-${randomUUID()}`);
    for (const part of parts) await l.component(g.machine.id, part);
    const key = g.license.attributes.key;
    const fingerprint = g.machine.attributes.fingerprint;
    expect(code(await validateKey(key, { fingerprint, components: [parts[0]!] }))).toBe('COMPONENTS_SCOPE_MISMATCH');
    expect(code(await validateKey(key, { fingerprint, components: [parts[0]!, parts[2]!] }))).toBe('VALID');
  });

  it('the purpose of components under MATCH_MOST: a cloned machine fails, an upgraded one passes', async () => {
    const f = await fingerprinted('MATCH_MOST');
    // A clone reports the original's machine fingerprint but its own hardware.
    const clone = ['cpu', 'board', 'disk', 'mac'].map((p) => `clone-${p}-${randomUUID()}`);
    expect(code(await validateKey(f.key, { fingerprint: f.fingerprint, components: clone }))).toBe('COMPONENTS_SCOPE_MISMATCH');
    // The original machine with one part replaced (a new disk) still validates, no new activation needed.
    const upgraded = [f.parts[0]!, f.parts[1]!, f.parts[2]!, `new-disk-${randomUUID()}`];
    expect(code(await validateKey(f.key, { fingerprint: f.fingerprint, components: upgraded }))).toBe('VALID');
  });
});

describe.concurrent('POST /licenses/<id>/actions/validate', () => {
  it('a bearer who may see the license validates it with the same verdicts', async () => {
    const owner = await newUser(account);
    const f = await fingerprinted('MATCH_ALL');
    const owned = await l.license(f.policy.id, {}, { owner: owner.id });
    const validate = (id: string, token: string, scope?: Scope) =>
      call('POST', `${account.path}/licenses/${id}/actions/validate`, { token, ...(scope ? { body: { meta: { scope } } } : {}) });
    expect(code(await validate(f.license.id, account.adminToken, { fingerprint: f.fingerprint, components: f.parts }))).toBe('VALID');
    expect(code(await validate(f.license.id, account.adminToken, { fingerprint: f.fingerprint, components: f.parts.slice(1) }))).toBe(
      'COMPONENTS_SCOPE_MISMATCH',
    );
    const licenseToken = await l.licenseToken(f.license.id);
    expect(code(await validate(f.license.id, licenseToken))).toBe('VALID');
    expect(code(await validate(owned.id, owner.token))).toBe('VALID');
    expectCode(await validate(f.license.id, owner.token), 404, 'NOT_FOUND');
    expectCode(await call('POST', `${account.path}/licenses/${f.license.id}/actions/validate`), 401, 'TOKEN_MISSING');
    expect(
      code(await call('POST', `${account.path}/licenses/${f.license.id}/actions/validate`, { authorization: `License ${f.key}` })),
    ).toBe('VALID');
  });

  it('the body is optional, and when sent it is {meta: {scope?}}: 400 for anything else', async () => {
    const g = await l.graph();
    const path = `${account.path}/licenses/${g.license.id}/actions/validate`;
    const send = (body: unknown) => call('POST', path, { token: account.adminToken, body });
    expect(code(await send({ meta: {} }))).toBe('VALID');
    expectError(await send({ meta: { scope: { fingerprint: 'x', serial: 1 } } }), 400, { source: { pointer: '/meta/scope/serial' } });
    expectError(await send({ meta: { key: g.license.attributes.key } }), 400, { source: { pointer: '/meta/key' } });
    expectError(await send({ data: null }), 400);
  });
});

describe.concurrent('answers bound to their request: ts, nonce and scope', () => {
  const validateKeyWith = (meta: Record<string, unknown>) =>
    call('POST', `${account.path}/licenses/actions/validate-key`, { body: { meta } });
  const validateWith = (id: string, meta: Record<string, unknown>) =>
    call('POST', `${account.path}/licenses/${id}/actions/validate`, { token: account.adminToken, body: { meta } });

  it('validate-key: ts is the time of the verdict; nonce and scope come back as sent, and only when sent', async () => {
    const g = await l.graph();
    const key = g.license.attributes.key as string;
    const scope = { fingerprint: g.machine.attributes.fingerprint, product: g.product.id, components: [] };
    const before = Date.now();
    const reply = await validateKeyWith({ key, nonce: 1234567890123, scope: { fingerprint: scope.fingerprint, product: g.product.id } });
    const after = Date.now();
    expect(code(reply)).toBe('VALID');
    expect(reply.body.meta).toEqual({
      ts: expect.any(String),
      valid: true,
      detail: 'is valid',
      code: 'VALID',
      nonce: 1234567890123,
      scope: { fingerprint: scope.fingerprint, product: g.product.id },
    });
    const ts = Date.parse(reply.body.meta.ts);
    expect(new Date(ts).toISOString()).toBe(reply.body.meta.ts);
    expect(ts).toBeGreaterThanOrEqual(before);
    expect(ts).toBeLessThanOrEqual(after);
    // A verdict that is not VALID binds the same way; the scope comes back even when it failed the check.
    expect((await validateKeyWith({ key, nonce: -7, scope })).body.meta).toMatchObject({
      code: 'COMPONENTS_SCOPE_EMPTY',
      nonce: -7,
      scope,
    });
    const bare = await validateKeyWith({ key });
    expect(Object.keys(bare.body.meta).sort()).toEqual(['code', 'detail', 'ts', 'valid']);
    expect((await validateKeyWith({ key, nonce: 0 })).body.meta.nonce).toBe(0);
  });

  it('validate-key: an unknown key is a verdict bound like any other', async () => {
    const reply = await validateKeyWith({ key: `nope-${randomUUID()}`, nonce: 42, scope: { policy: 'p' } });
    expect(code(reply)).toBe('NOT_FOUND');
    expect(reply.body.data).toBeNull();
    expect(reply.body.meta).toMatchObject({ nonce: 42, scope: { policy: 'p' } });
  });

  it('validate: nonce and scope echoed, ts present; neither echoed when not sent', async () => {
    const g = await l.graph();
    const before = Date.now();
    const reply = await validateWith(g.license.id, { nonce: 9, scope: { policy: g.policy.id } });
    expect(code(reply)).toBe('VALID');
    expect(reply.body.meta).toMatchObject({ nonce: 9, scope: { policy: g.policy.id } });
    expect(Date.parse(reply.body.meta.ts)).toBeGreaterThanOrEqual(before);
    expect(Object.keys((await validateWith(g.license.id, {})).body.meta).sort()).toEqual(['code', 'detail', 'ts', 'valid']);
    const unscoped = await call('POST', `${account.path}/licenses/${g.license.id}/actions/validate`, { token: account.adminToken });
    expect(Object.keys(unscoped.body.meta).sort()).toEqual(['code', 'detail', 'ts', 'valid']);
  });

  it('a nonce that is not a JSON integer is 400 at /meta/nonce, on both routes', async () => {
    const g = await l.graph();
    const key = g.license.attributes.key as string;
    for (const nonce of ['1', 1.5, true, false, null, [], {}, 2 ** 53]) {
      for (const reply of [await validateKeyWith({ key, nonce }), await validateWith(g.license.id, { nonce })]) {
        expect(expectCode(reply, 400, 'PARAMETER_INVALID').source, JSON.stringify(nonce)).toEqual({ pointer: '/meta/nonce' });
      }
    }
  });
});
