/**
 * How a list reads its page's records (shared/store/paging.ts): located on the collection index,
 * then read by key in one BatchGetItem with what is shown beside them (a machine's policy) and the
 * counters not read ahead. Eventually consistent as the index is, unless the counters come with
 * them: a count must count the client's own last write.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '#shared/resources/accounts/service.ts';
import * as licenses from '#shared/resources/licenses/handlers.ts';
import * as machines from '#shared/resources/machines/handlers.ts';
import * as policies from '#shared/resources/policies/handlers.ts';
import * as products from '#shared/resources/products/handlers.ts';
import { invoke, onDynamoCommand } from '../support/in-process.ts';

/** The BatchGetItems the service's clients have sent: how many keys, and whether strongly consistent. */
const batches: { keys: number; consistent: boolean }[] = [];
onDynamoCommand((name, input) => {
  if (name !== 'BatchGetItemCommand') return;
  const [request] = Object.values((input as { RequestItems: Record<string, { Keys: unknown[]; ConsistentRead?: boolean }> }).RequestItems);
  batches.push({ keys: request?.Keys.length ?? 0, consistent: request?.ConsistentRead === true });
});

const handlers = {
  'products.create': products.create(),
  'policies.create': policies.create(),
  'licenses.create': licenses.create(),
  'licenses.machines': licenses.machines(),
  'machines.create': machines.create(),
  'machines.list': machines.list(),
};

type Reply = {
  status: number;
  body: { data?: { id: string; attributes?: Record<string, unknown> } | { id: string }[]; links?: { meta?: { count?: number } } };
};

let made: Awaited<ReturnType<typeof createAccount>>;

/** A call as the account's admin; a GET asks for page 1 of 10. */
const call = (operation: keyof typeof handlers, route: string, params: Record<string, string> = {}, body?: unknown) =>
  invoke(handlers[operation], operation, {
    account: made.account.id,
    route,
    params,
    body,
    token: made.token,
    ...(body === undefined && { query: { 'page[size]': '10', 'page[number]': '1' } }),
  }) as Promise<Reply>;

const create = async (operation: keyof typeof handlers, route: string, type: string, attributes: object, relationships?: object) => {
  const reply = await call(operation, route, {}, { data: { type, attributes, ...(relationships && { relationships }) } });
  expect(reply.status).toBe(201);
  return (reply.body.data as { id: string }).id;
};
const ref = (type: string, id: string) => ({ data: { type, id } });

/** The BatchGetItems `request` sends. */
async function batchesOf(request: () => Promise<Reply>): Promise<{ reply: Reply; sent: typeof batches }> {
  const from = batches.length;
  const reply = await request();
  return { reply, sent: batches.slice(from) };
}

let licenseId: string;
let machineIds: string[];

beforeAll(async () => {
  const slug = `lists-${randomUUID().slice(0, 8)}`;
  made = await createAccount({ slug, name: 'Lists', email: `admin@${slug}.example`, password: 'a long password' });
  const productId = await create('products.create', '/products', 'products', { name: 'P' });
  const policyId = await create(
    'policies.create',
    '/policies',
    'policies',
    { name: 'Pol', maxMachines: 5 },
    { product: ref('products', productId) },
  );
  licenseId = await create('licenses.create', '/licenses', 'licenses', {}, { policy: ref('policies', policyId) });
  machineIds = [];
  for (let i = 0; i < 3; i++) {
    machineIds.push(
      await create(
        'machines.create',
        '/machines',
        'machines',
        { fingerprint: `fp-${randomUUID()}` },
        { license: ref('licenses', licenseId) },
      ),
    );
  }
});

describe('a list', () => {
  it("of a whole type reads its page and the machines' policies in one eventually consistent BatchGetItem (its counters came with the request)", async () => {
    const { reply, sent } = await batchesOf(() => call('machines.list', '/machines'));
    expect(reply.status).toBe(200);
    expect((reply.body.data as { id: string }[]).map((machine) => machine.id).sort()).toEqual([...machineIds].sort());
    expect(reply.body.links?.meta?.count).toBe(3);
    // The request's read-ahead (strongly consistent), then the page: 3 machines and their one policy.
    expect(sent).toEqual([
      { keys: expect.any(Number), consistent: true },
      { keys: 4, consistent: false },
    ]);
  });

  it("of a parent's collection reads its counter with its page, strongly consistent, so the count counts the client's own last write", async () => {
    const { reply, sent } = await batchesOf(() => call('licenses.machines', '/licenses/{id}/machines', { id: licenseId }));
    expect(reply.status).toBe(200);
    expect(reply.body.links?.meta?.count).toBe(3);
    // The read-ahead, then the 3 machines, their policy and the license's machines counter.
    expect(sent.at(-1)).toEqual({ keys: 5, consistent: true });
    expect(sent).toHaveLength(2);
  });
});
