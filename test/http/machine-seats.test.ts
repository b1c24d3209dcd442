/**
 * maxMachines counts every machine of a license, in whatever environment it was activated
 * (docs/rules.md §21.3): a global license's machines activated globally and inside SHARED environments
 * share one bound, under concurrent activations too. Removing a machine anywhere gives its seat
 * back, and so does purging the SHARED environment its machines were activated in. The count's
 * items are read from the table (the test stack's DynamoDB; TABLE_NAME is set).
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { licenseMachineCountKey } from '#shared/store/keys.ts';
import { call, newAccount, newEnvironment, type TestAccount } from '../support/client.ts';
import { doc, expectCode, licensing, ref } from '../support/licensing.ts';
import { purgeFinished, tableItem } from '../support/table.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;

type Credentials = { token?: string; authorization?: string; environment?: string };

const activate = (licenseId: string, credentials: Credentials = {}) =>
  l.api('POST', '/machines', {
    ...credentials,
    body: doc('machines', { fingerprint: `s-${randomUUID()}` }, { license: ref('licenses', licenseId) }),
  });

function expectLimit(reply: Awaited<ReturnType<typeof activate>>) {
  const error = expectCode(reply, 422, 'MACHINE_LIMIT_EXCEEDED');
  expect(error.source).toEqual({ pointer: '/data' });
}

const sharedEnvironment = () => newEnvironment(account, 'SHARED');

/** A global policy with this maxMachines and a global license on it, without machines. */
async function globalLicense(maxMachines: number) {
  const product = await l.product();
  const policy = await l.policy(product.id, { maxMachines });
  return l.license(policy.id);
}

beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
});

describe.concurrent('maxMachines across environments', () => {
  it('a global license with two machines activated globally has no seat left in a SHARED environment; a deactivation in either frees one', async () => {
    const shared = await sharedEnvironment();
    const license = await globalLicense(2);
    const token = await l.licenseToken(license.id);
    const inShared: Credentials[] = [
      { token, environment: shared.code },
      { authorization: `License ${license.attributes.key}`, environment: shared.code },
      { environment: shared.code },
    ];
    const first = await activate(license.id);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect((await activate(license.id, { token })).status).toBe(201);
    for (const credentials of inShared) expectLimit(await activate(license.id, credentials));

    // A global machine goes: its seat may be taken inside the SHARED environment, and only once.
    expect((await l.api('DELETE', `/machines/${first.body.data.id}`)).status).toBe(204);
    const made = await activate(license.id, { token, environment: shared.code });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.data.relationships.environment.data).toEqual({ type: 'environments', id: shared.id });
    expectLimit(await activate(license.id));
    expectLimit(await activate(license.id, { authorization: `License ${license.attributes.key}`, environment: shared.code }));

    // The SHARED environment's machine goes: its seat may be taken globally.
    expect((await l.api('DELETE', `/machines/${made.body.data.id}`, { token, environment: shared.code })).status).toBe(204);
    expect((await activate(license.id)).status).toBe(201);
    expectLimit(await activate(license.id, { token, environment: shared.code }));
  });

  it('concurrent activations globally and in a SHARED environment never exceed maxMachines', async () => {
    const shared = await sharedEnvironment();
    const license = await globalLicense(2);
    const token = await l.licenseToken(license.id);
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) => activate(license.id, i % 2 === 0 ? { token } : { token, environment: shared.code })),
    );
    expect(replies.filter((r) => r.status === 201)).toHaveLength(2);
    for (const reply of replies.filter((r) => r.status !== 201)) expectLimit(reply);
    const listed = await l.api('GET', `/licenses/${license.id}/machines`, { environment: shared.code });
    expect(listed.body.data).toHaveLength(2);
  });

  it('a license deleted with its machines, or with its policy or product, takes its count with it', async () => {
    const shared = await sharedEnvironment();
    for (const parent of ['licenses', 'policies', 'products'] as const) {
      const product = await l.product();
      const policy = await l.policy(product.id, { maxMachines: 5 });
      const license = await l.license(policy.id);
      const token = await l.licenseToken(license.id);
      for (const environment of [undefined, undefined, shared.code, shared.code]) {
        expect((await activate(license.id, { token, environment })).status).toBe(201);
      }
      const countKey = licenseMachineCountKey(account.id, license.id);
      const shareKey = licenseMachineCountKey(account.id, license.id, shared.id);
      expect(await tableItem(countKey), parent).toMatchObject({ n: 4 });
      expect(await tableItem(shareKey), parent).toMatchObject({ n: 2 });
      const id = { licenses: license.id, policies: policy.id, products: product.id }[parent];
      expect((await l.api('DELETE', `/${parent}/${id}`)).status, parent).toBe(204);
      expect(await tableItem(countKey), parent).toBeUndefined();
      // The share stays at 0 until its environment goes: nothing counts on it.
      expect(await tableItem(shareKey), parent).toMatchObject({ n: 0 });
    }
  });

  it('purging a SHARED environment gives back the seats its machines held, once', async () => {
    const shared = await sharedEnvironment();
    const license = await globalLicense(3);
    const token = await l.licenseToken(license.id);
    expect((await activate(license.id)).status).toBe(201);
    for (let i = 0; i < 2; i++) expect((await activate(license.id, { token, environment: shared.code })).status).toBe(201);
    expectLimit(await activate(license.id));

    expect((await call('DELETE', `${account.path}/environments/${shared.id}`, { token: account.adminToken })).status).toBe(204);
    await purgeFinished(account.id, shared.id);

    for (let i = 0; i < 2; i++) expect((await activate(license.id, { token })).status).toBe(201);
    expectLimit(await activate(license.id));
    expect((await l.api('GET', `/licenses/${license.id}/machines`)).body.data).toHaveLength(3);
  });
});
