/**
 * validate-key reads ahead, with the key's marker, what the container's last validation of that
 * key with that scope read after it (shared/resources/licenses/reads-before.ts): a repeated
 * validation makes one DynamoDB request. The marker read in that request still decides: a key
 * that now names another license is answered for that license, never from what was read ahead
 * for the one before.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext } from '#dev/local/lambda-context.ts';
import { onServiceClient } from '#shared/client-hooks.ts';
import type { RequestContext } from '#shared/http/pipeline.ts';
import { createAccount } from '#shared/resources/accounts/service.ts';
import * as licenses from '#shared/resources/licenses/handlers.ts';
import * as machines from '#shared/resources/machines/handlers.ts';
import * as policies from '#shared/resources/policies/handlers.ts';
import * as products from '#shared/resources/products/handlers.ts';

/** The DynamoDB commands the service's clients have sent, by name, in order. */
const sent: string[] = [];
onServiceClient((client, service) => {
  if (service !== 'dynamodb') return;
  client.middlewareStack.add(
    (next, context) => (args) => {
      sent.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'countCommands' },
  );
});

const handlers = {
  'products.create': products.create(),
  'policies.create': policies.create(),
  'licenses.create': licenses.create(),
  'licenses.delete': licenses.remove(),
  'licenses.validateKey': licenses.validateKey(),
  'machines.create': machines.create(),
};

type Reply = { status: number; body: { data?: { id: string } | null; meta?: { code?: string; valid?: boolean; ts?: string } } };

let made: Awaited<ReturnType<typeof createAccount>>;

async function call(
  operation: keyof typeof handlers,
  path: string,
  body?: unknown,
  method = body === undefined ? 'GET' : 'POST',
): Promise<Reply> {
  const account = made.account.id;
  const [, id] = path.match(/^\/[a-z-]+\/([^/]+)$/) ?? [];
  const event = {
    version: '2.0',
    routeKey: `${method} /v1/accounts/{account}${id ? path.replace(id, '{id}') : path}`,
    rawPath: `/v1/accounts/${account}${path}`,
    rawQueryString: '',
    headers: {
      host: 'api.example',
      accept: 'application/vnd.api+json',
      ...(operation === 'licenses.validateKey' ? {} : { authorization: `Bearer ${made.token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/vnd.api+json' }),
    },
    pathParameters: { account, ...(id ? { id } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
    requestContext: { requestId: randomUUID(), http: { method, path: '/', sourceIp: '127.0.0.1' } },
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
  const context = lambdaContext(operation, 10, 'us-east-1') as Context & { request: Partial<RequestContext> };
  const result = (await handlers[operation](event, context)) as APIGatewayProxyStructuredResultV2;
  return { status: result.statusCode ?? 0, body: JSON.parse(result.body || '{}') };
}

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
    expect(first.commands).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand']);
    // The same scope written in another order is the same scope.
    const again = await commandsOf(validate(key, { components: ['a', 'b'], fingerprint }));
    expect(again.commands).toEqual(['BatchGetItemCommand']);
    expect(again.reply.body).toEqual({ ...first.reply.body, meta: { ...first.reply.body.meta, ts: again.reply.body.meta?.ts } });
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
    expect((await call('licenses.delete', `/licenses/${before}`, undefined, 'DELETE')).status).toBe(204);
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
