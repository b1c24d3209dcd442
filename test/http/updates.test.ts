/**
 * One update body everywhere: a PATCH is `{data: {type, id?, attributes?}}`, and a PATCH that
 * sends no attributes changes nothing and answers 200 with the record as it is (JSON:API: the
 * attributes a client leaves out keep their values; none left in is no change at all).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount, newEnvironment, newUser, type TestAccount } from '../support/client.ts';
import { licensing } from '../support/licensing.ts';

let account: TestAccount;
let paths: Record<string, { path: string; type: string; id: string }>;

beforeAll(async () => {
  account = await newAccount();
  const l = licensing(account);
  const user = await newUser(account);
  const environment = await newEnvironment(account, 'ISOLATED');
  const { product, policy, license, machine } = await l.graph();
  const component = await l.component(machine.id);
  const endpoint = await call('POST', `${account.path}/webhook-endpoints`, {
    token: account.adminToken,
    body: { data: { type: 'webhook-endpoints', attributes: { url: 'http://127.0.0.1:9/hooks' } } },
  });
  expect(endpoint.status).toBe(201);
  const at = (type: string, id: string) => ({ path: `${account.path}/${type}/${id}`, type, id });
  paths = {
    account: { path: account.path, type: 'accounts', id: account.id },
    user: at('users', user.id),
    environment: at('environments', environment.id),
    product: at('products', product.id),
    policy: at('policies', policy.id),
    license: at('licenses', license.id),
    machine: at('machines', machine.id),
    component: at('components', component.id),
    'webhook endpoint': at('webhook-endpoints', endpoint.body.data.id),
  };
});

describe('PATCH without attributes', () => {
  for (const name of ['account', 'user', 'environment', 'product', 'policy', 'license', 'machine', 'component', 'webhook endpoint']) {
    it(`a ${name}: 200, nothing changed`, async () => {
      const { path, type, id } = paths[name]!;
      const before = await call('GET', path, { token: account.adminToken });
      expect(before.status, JSON.stringify(before.body)).toBe(200);
      for (const data of [{ type }, { type, id }]) {
        const reply = await call('PATCH', path, { token: account.adminToken, body: { data } });
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        expect({ ...reply.body.data.attributes, updated: undefined }).toEqual({ ...before.body.data.attributes, updated: undefined });
      }
      // Still a document of its type: another type is refused.
      expect((await call('PATCH', path, { token: account.adminToken, body: { data: { type: 'nothing' } } })).status).toBe(400);
    });
  }
});
