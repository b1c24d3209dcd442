/**
 * A policy's authenticationStrategy (docs/rules.md §6.3): whether the licenses under it act as
 * bearers by their key (`Authorization: License <key>`), by a license token, both (MIXED, the
 * default) or neither (NONE). Validation by key is no authentication and answers under every one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/client.ts';
import { doc, expectCode, licensing } from '../support/licensing.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;

beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
});

/** A license under a policy with `authenticationStrategy` (absent: the default), with a token of its own. */
async function licenseUnder(authenticationStrategy?: string) {
  const product = await l.product();
  const policy = await l.policy(product.id, authenticationStrategy ? { authenticationStrategy } : {});
  const license = await l.license(policy.id);
  return { policy, license, token: await l.licenseToken(license.id) };
}

const me = (credential: { token?: string; authorization?: string }) => call('GET', `${account.path}/me`, credential);

describe.concurrent('authenticationStrategy', () => {
  it('MIXED by default; each strategy admits its credentials and refuses the others with 403 and its code', async () => {
    const { policy } = await licenseUnder();
    expect(policy.attributes.authenticationStrategy).toBe('MIXED');
    for (const [strategy, key, token] of [
      ['MIXED', 200, 200],
      ['LICENSE', 200, 403],
      ['TOKEN', 403, 200],
      ['NONE', 403, 403],
    ] as const) {
      const { license, token: value } = await licenseUnder(strategy);
      const byKey = await me({ authorization: `License ${license.attributes.key}` });
      const byToken = await me({ token: value });
      expect([byKey.status, byToken.status], strategy).toEqual([key, token]);
      if (key === 403) expectCode(byKey, 403, 'LICENSE_NOT_ALLOWED');
      if (token === 403) expectCode(byToken, 403, 'TOKEN_NOT_ALLOWED');
      if (key === 200) expect(byKey.body.data).toMatchObject({ type: 'licenses', id: license.id });
    }
  });

  it('a change of the policy applies at once to its licenses; validation by key answers whatever the strategy', async () => {
    const { policy, license, token } = await licenseUnder();
    const set = (authenticationStrategy: string) =>
      l.api('PATCH', `/policies/${policy.id}`, { body: doc('policies', { authenticationStrategy }) });
    expect((await set('TOKEN')).status).toBe(200);
    expectCode(await me({ authorization: `License ${license.attributes.key}` }), 403, 'LICENSE_NOT_ALLOWED');
    expect((await me({ token })).status).toBe(200);
    expect((await set('NONE')).status).toBe(200);
    expectCode(await me({ token }), 403, 'TOKEN_NOT_ALLOWED');
    const validated = await call('POST', `${account.path}/licenses/actions/validate-key`, {
      body: { meta: { key: license.attributes.key } },
    });
    expect(validated.body.meta).toMatchObject({ valid: true, code: 'VALID' });
    // Refused as a bearer, it acts on nothing: a machine is not activated by it.
    const activation = await call('POST', `${account.path}/machines`, {
      authorization: `License ${license.attributes.key}`,
      body: doc('machines', { fingerprint: 'fp-refused' }, { license: { data: { type: 'licenses', id: license.id } } }),
    });
    expectCode(activation, 403, 'LICENSE_NOT_ALLOWED');
    const machines = await l.api('GET', `/licenses/${license.id}/machines`);
    expect(machines.body.data).toEqual([]);
    expect((await set('MIXED')).status).toBe(200);
    expect((await me({ authorization: `License ${license.attributes.key}` })).status).toBe(200);
  });

  it('an unknown strategy is 422 AUTHENTICATION_STRATEGY_NOT_ALLOWED', async () => {
    const { policy } = await licenseUnder();
    const reply = await l.api('PATCH', `/policies/${policy.id}`, { body: doc('policies', { authenticationStrategy: 'OPEN' }) });
    const error = expectCode(reply, 422, 'AUTHENTICATION_STRATEGY_NOT_ALLOWED');
    expect(error.source.pointer).toBe('/data/attributes/authenticationStrategy');
  });
});
