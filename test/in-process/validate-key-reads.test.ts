/**
 * validate-key reads ahead, with the key's marker, what the container's last validation of that
 * key with that scope read after it (shared/resources/licenses/reads-before.ts): a repeated
 * validation makes one DynamoDB request (the first also writes the license's lastValidated, which
 * a validation within the next minute leaves as it is). The marker read in that request still
 * decides: a key
 * that now names another license is answered for that license, never from what was read ahead
 * for the one before.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '#shared/resources/accounts/service.ts';
import * as licenses from '#shared/resources/licenses/handlers.ts';
import * as machines from '#shared/resources/machines/handlers.ts';
import * as policies from '#shared/resources/policies/handlers.ts';
import * as products from '#shared/resources/products/handlers.ts';
import { invoke, onDynamoCommand } from '../support/in-process.ts';

/**
 * The DynamoDB commands the service's clients have sent, by name, in order: but the address's
 * tally, which the container sends once it has counted a batch of hits, whatever the request.
 */
const sent: string[] = [];
onDynamoCommand((name, input) => {
  if (!String((input.Key as { PK?: string } | undefined)?.PK).startsWith('RATE#')) sent.push(name);
});

const handlers = {
  'products.create': products.create(),
  'policies.create': policies.create(),
  'licenses.create': licenses.create(),
  'licenses.delete': licenses.remove(),
  'licenses.validateKey': licenses.validateKey(),
  'machines.create': machines.create(),
};

type Reply = {
  status: number;
  body: { data?: { id: string; attributes?: Record<string, unknown> } | null; meta?: { code?: string; valid?: boolean; ts?: string } };
};

let made: Awaited<ReturnType<typeof createAccount>>;

/** A call as the account's admin; validate-key, with no bearer. */
const call = (operation: keyof typeof handlers, route: string, body?: unknown, params: Record<string, string> = {}, method?: string) =>
  invoke(handlers[operation], operation, {
    account: made.account.id,
    route,
    params,
    body,
    method,
    ...(operation === 'licenses.validateKey' ? {} : { token: made.token }),
  }) as Promise<Reply>;

async function commandsOf(request: () => Promise<Reply>): Promise<{ commands: string[]; reply: Reply }> {
  const from = sent.length;
  const reply = await request();
  return { commands: sent.slice(from), reply };
}

const create = async (operation: keyof typeof handlers, path: string, type: string, attributes: object, relationships?: object) => {
  const reply = await call(operation, path, { data: { type, attributes, ...(relationships && { relationships }) } });
  expect(reply.status).toBe(201);
  return reply.body.data?.id ?? '';
};
const ref = (type: string, id: string) => ({ data: { type, id } });

let productId: string;
let policyId: string;

beforeAll(async () => {
  const slug = `reads-${randomUUID().slice(0, 8)}`;
  made = await createAccount({ slug, name: 'Reads', email: `admin@${slug}.example`, password: 'a long password' });
  productId = await create('products.create', '/products', 'products', { name: 'P' });
  policyId = await create('policies.create', '/policies', 'policies', { name: 'Pol' }, { product: ref('products', productId) });
});

const validate = (key: string, scope?: object) => () =>
  call('licenses.validateKey', '/licenses/actions/validate-key', { meta: { key, ...(scope ? { scope } : {}) } });

describe('validate-key', () => {
  it('validated again with the same scope reads everything in one request, and answers the same', async () => {
    const key = `KEY-${randomUUID()}`;
    const licenseId = await create('licenses.create', '/licenses', 'licenses', { key }, { policy: ref('policies', policyId) });
    const fingerprint = `fp-${randomUUID()}`;
    await create('machines.create', '/machines', 'machines', { fingerprint }, { license: ref('licenses', licenseId) });
    const scope = { fingerprint, components: ['a', 'b'] };

    const first = await commandsOf(validate(key, scope));
    expect(first.commands).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand', 'UpdateItemCommand']);
    // The same scope written in another order is the same scope.
    const again = await commandsOf(validate(key, { components: ['a', 'b'], fingerprint }));
    expect(again.commands).toEqual(['BatchGetItemCommand']);
    // The same answer, but for the time of the verdict: the license's lastValidated is the first's still.
    expect(again.reply.body).toEqual({ ...first.reply.body, meta: { ...first.reply.body.meta, ts: again.reply.body.meta?.ts } });
    expect(first.reply.body.data?.attributes?.lastValidated).toBe(first.reply.body.meta?.ts);
    expect(again.reply.body.data?.id).toBe(licenseId);

    // Another scope was not met: the marker first, then what it names (and, its fingerprint
    // naming no machine, the license's counts).
    const other = await commandsOf(validate(key, { fingerprint: `fp-${randomUUID()}` }));
    expect(other.commands.slice(0, 2)).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand']);
    expect(other.reply.body.meta?.code).toBe('FINGERPRINT_SCOPE_MISMATCH');
  });

  it('answers for the license the key names now, not from what was read ahead for the license it named before', async () => {
    const key = `KEY-${randomUUID()}`;
    const scope = { fingerprint: `fp-${randomUUID()}` };
    const before = await create('licenses.create', '/licenses', 'licenses', { key }, { policy: ref('policies', policyId) });
    await create('machines.create', '/machines', 'machines', { fingerprint: scope.fingerprint }, { license: ref('licenses', before) });
    await validate(key, scope)();
    expect((await validate(key, scope)()).body).toMatchObject({ data: { id: before }, meta: { valid: true, code: 'VALID' } });

    // The license goes; another, of another policy and without that machine, takes its key.
    expect((await call('licenses.delete', '/licenses/{id}', undefined, { id: before }, 'DELETE')).status).toBe(204);
    const otherPolicy = await create(
      'policies.create',
      '/policies',
      'policies',
      { name: 'Other' },
      { product: ref('products', productId) },
    );
    const after = await create('licenses.create', '/licenses', 'licenses', { key }, { policy: ref('policies', otherPolicy) });

    // What was read ahead named the license before (its machine among it): the answer is the new one's.
    expect((await validate(key, scope)()).body).toMatchObject({ data: { id: after }, meta: { valid: false, code: 'NO_MACHINES' } });
    expect((await validate(key, scope)()).body).toMatchObject({ data: { id: after }, meta: { valid: false, code: 'NO_MACHINES' } });
  });

  it('reads nothing more ahead for a key that names no license', async () => {
    const key = `KEY-${randomUUID()}`;
    const { commands, reply } = await commandsOf(validate(key, { fingerprint: 'x' }));
    expect(reply.body).toMatchObject({ data: null, meta: { code: 'NOT_FOUND' } });
    expect(commands).toEqual(['BatchGetItemCommand']);
  });
});
