/**
 * The licensing graph emits its events like every other resource: created, updated and deleted
 * for products, policies, licenses, machines and components, token.generated for product and
 * license tokens, and license.validation.succeeded / failed with the answer's meta, each delivered signed.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/client.ts';
import { localStackIdle } from '../support/idle.ts';
import { doc, licensing } from '../support/licensing.ts';
import { ofKind, type Receiver, startReceiver, verify } from '../support/receiver.ts';

let account: TestAccount;
let receiver: Receiver;
let secret: string;

beforeAll(async () => {
  account = await newAccount();
  receiver = await startReceiver();
  const endpoint = await call('POST', `${account.path}/webhook-endpoints`, {
    token: account.adminToken,
    body: { data: { type: 'webhook-endpoints', attributes: { url: receiver.url } } },
  });
  expect(endpoint.status).toBe(201);
  secret = endpoint.body.data.attributes.signingSecret;
});

afterAll(() => receiver.close());

it('emits an event for every change of the licensing graph, and for validations and tokens', async () => {
  const l = licensing(account);
  const g = await l.graph();
  const component = await l.component(g.machine.id, 'cpu-1');
  for (const [type, id] of [
    ['products', g.product.id],
    ['policies', g.policy.id],
    ['licenses', g.license.id],
    ['machines', g.machine.id],
    ['components', component.id],
  ] as const) {
    expect((await l.api('PATCH', `/${type}/${id}`, { body: doc(type, { name: 'Renamed' }) })).status).toBe(200);
  }
  await l.licenseToken(g.license.id);
  const key = g.license.attributes.key as string;
  const scope = { fingerprint: g.machine.attributes.fingerprint };
  const validated = await call('POST', `${account.path}/licenses/actions/validate-key`, { body: { meta: { key, nonce: 7, scope } } });
  expect(validated.body.meta.valid).toBe(true);
  const failed = await call('POST', `${account.path}/licenses/actions/validate-key`, {
    body: { meta: { key, scope: { fingerprint: 'not-activated' } } },
  });
  expect(failed.body.meta.code).toBe('FINGERPRINT_SCOPE_MISMATCH');
  expect((await l.api('DELETE', `/components/${component.id}`)).status).toBe(204);
  expect((await l.api('DELETE', `/products/${g.product.id}`)).status).toBe(204);

  const kinds = [
    ...['product', 'policy', 'license', 'machine', 'component'].flatMap((t) => [`${t}.created`, `${t}.updated`]),
    'component.deleted',
    'product.deleted',
    'token.generated',
    'license.validation.succeeded',
    'license.validation.failed',
  ];
  const deliveries = await receiver.waitFor((all) => kinds.every((kind) => ofKind(all, kind).length > 0));
  for (const kind of kinds) verify(secret, ofKind(deliveries, kind)[0]!);

  // Each carries the answer's meta: the verdict, its time, the nonce and scope when the request sent them.
  const succeeded = JSON.parse(ofKind(deliveries, 'license.validation.succeeded')[0]!.json.data.attributes.payload);
  expect(succeeded.data).toMatchObject({ type: 'licenses', id: g.license.id });
  expect(succeeded.meta).toEqual(validated.body.meta);
  const failure = JSON.parse(ofKind(deliveries, 'license.validation.failed')[0]!.json.data.attributes.payload);
  expect(failure.meta).toEqual(failed.body.meta);
  expect(failure.meta.valid).toBe(false);
  const deleted = JSON.parse(ofKind(deliveries, 'product.deleted')[0]!.json.data.attributes.payload);
  expect(deleted.data).toMatchObject({ type: 'products', id: g.product.id, attributes: { name: 'Renamed' } });
});

it('emits nothing for a refused change', async () => {
  const l = licensing(account);
  const g = await l.graph();
  // Every delivery of the graph's creation has arrived (they may arrive in any order).
  await localStackIdle();
  const before = receiver.deliveries.length;
  const refused = await l.api('POST', '/components', {
    body: doc(
      'components',
      { fingerprint: 'x', name: 'X' },
      { machine: { data: { type: 'machines', id: '00000000-0000-4000-8000-000000000000' } } },
    ),
  });
  expect(refused.status).toBe(422);
  expect((await l.api('PATCH', `/machines/${g.machine.id}`, { body: doc('machines', { fingerprint: 'changed' }) })).status).toBe(400);
  await localStackIdle();
  expect(receiver.deliveries.length).toBe(before);
});
