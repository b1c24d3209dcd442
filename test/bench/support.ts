/**
 * What the benchmark sections share: a bench account, an HTTP client for the in-process API,
 * fast seeding (BatchWriteItem, items laid out exactly as the store lays them out) and a meter
 * that counts the DynamoDB requests the handlers make.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { InitializeMiddleware } from '@smithy/types';
import type { LocalStack } from '#dev/local/stack.ts';
import { fingerprintValue } from '#shared/licensing/fingerprints.ts';
import { createAccount } from '#shared/resources/accounts/service.ts';
import { LICENSE_KEY_MARKER, licenseKeyValue } from '#shared/resources/licenses/entity.ts';
import { db, getTable, plainDb } from '#shared/store/client.ts';
import {
  collectionName,
  collectionPartition,
  collectionSortKey,
  counterKey,
  environmentMembership,
  type RecordType,
  recordKey,
  uniqueKey,
} from '#shared/store/keys.ts';
import { billedAction } from './capacity.ts';

export interface BenchContext {
  stack: LocalStack;
}

export interface BenchAccount {
  id: string;
  slug: string;
  token: string;
  adminId: string;
}

export async function benchAccount(): Promise<BenchAccount> {
  const slug = `bench-${randomUUID().slice(0, 8)}`;
  const { account, token, user } = await createAccount({ slug, name: 'Bench', email: `admin@${slug}.example`, password: 'bench password' });
  return { id: account.id, slug, token, adminId: user.id };
}

export interface Reply {
  status: number;
  body: any;
}

/** A JSON:API client of one account, as its admin unless `authorization` says otherwise. */
export function client(stack: LocalStack, account: BenchAccount) {
  return async (method: string, path: string, body?: unknown, authorization: string | null = `Bearer ${account.token}`): Promise<Reply> => {
    const headers: Record<string, string> = { accept: 'application/vnd.api+json' };
    if (authorization) headers.authorization = authorization;
    if (body !== undefined) headers['content-type'] = 'application/vnd.api+json';
    const response = await fetch(`${stack.api}/v1/accounts/${account.id}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
}

export type Client = ReturnType<typeof client>;

/** A request that must succeed; its `data`. */
export async function must(reply: Promise<Reply>, what: string): Promise<any> {
  const { status, body } = await reply;
  if (status >= 300) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
  return body?.data;
}

const ref = (type: string, id: string) => ({ data: { type, id } });
export const doc = (type: string, attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => ({
  data: { type, attributes, ...(relationships ? { relationships } : {}) },
});

/** A product, a policy, a license and one machine, made through the API. */
export async function licensingGraph(call: Client) {
  const product = await must(call('POST', '/products', doc('products', { name: 'Bench product' })), 'product');
  const policy = await must(
    call('POST', '/policies', doc('policies', { name: 'Bench policy' }, { product: ref('products', product.id) })),
    'policy',
  );
  const license = await must(call('POST', '/licenses', doc('licenses', {}, { policy: ref('policies', policy.id) })), 'license');
  const machine = await must(
    call('POST', '/machines', doc('machines', { fingerprint: `fp-${randomUUID()}` }, { license: ref('licenses', license.id) })),
    'machine',
  );
  return { product, policy, license, machine };
}

export const componentBody = (machineId: string, fingerprint = `c-${randomUUID()}`) =>
  doc('components', { fingerprint, name: `Part ${fingerprint.slice(0, 10)}` }, { machine: ref('machines', machineId) });

// ---------------------------------------------------------------------------------------------
// Seeding

type Item = Record<string, unknown>;

/** The item of a record as Transaction.create lays it out (collections, markers, ENVPK). */
function layOut(
  record: Item & { type: RecordType; id: string; accountId: string; environmentId: string | null; created: string },
  parents: ({ type: RecordType; id: string } | undefined)[],
  markers: string[],
): Item {
  const { accountId, environmentId, type, id, created } = record;
  const item: Item = { ...record, ...recordKey(accountId, type, id), markers };
  const sortKey = collectionSortKey(created, id);
  item.GSI1PK = collectionPartition(accountId, environmentId, collectionName(type));
  item.GSI1SK = sortKey;
  parents.forEach((parent, slot) => {
    if (!parent) return;
    item[`GSI${slot + 2}PK`] = collectionPartition(accountId, environmentId, collectionName(type, parent));
    item[`GSI${slot + 2}SK`] = sortKey;
  });
  if (environmentId) item.ENVPK = environmentMembership(accountId, environmentId);
  return item;
}

/** Collection partitions an item belongs to (what its counters count). */
const collectionsOf = (item: Item) =>
  ['GSI1PK', 'GSI2PK', 'GSI3PK', 'GSI4PK', 'GSI5PK']
    .map((name) => item[name])
    .filter((value): value is string => typeof value === 'string');

/**
 * Seeded timestamps run backwards from a fixed point a day ago, one millisecond apart, so the
 * seeded records are older than anything the API makes during the run and lists show the
 * API's own records first.
 */
let clock = Date.now() - 86_400_000;
const olderTimestamp = () => new Date(clock--).toISOString();

/** `count` user records (with their e-mail markers) of one environment, or of the global one. */
export function userItems(accountId: string, environmentId: string | null, count: number): Item[] {
  const items: Item[] = [];
  const membership = environmentId ? { ENVPK: environmentMembership(accountId, environmentId) } : {};
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    const created = olderTimestamp();
    const email = `${id}@seed.example`;
    const marker = uniqueKey(accountId, 'EMAIL', email);
    const record = {
      type: 'users' as const,
      id,
      accountId,
      environmentId,
      created,
      updated: created,
      email,
      role: 'user',
      status: 'ACTIVE',
      metadata: {},
      firstName: null,
      lastName: null,
    };
    items.push(layOut(record, [], [marker.PK]), { ...marker, ref: recordKey(accountId, 'users', id).PK, ...membership });
  }
  return items;
}

/**
 * `count` components (with their fingerprint markers) of one machine, as components.create wrote them before the
 * counts of a fingerprint's holders: seeding writes no count.
 */
export function componentItems(
  machine: {
    id: string;
    accountId: string;
    environmentId: string | null;
    licenseId: string;
    policyId: string;
    productId: string;
    ownerId?: string | null;
  },
  count: number,
): Item[] {
  const items: Item[] = [];
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    const created = olderTimestamp();
    const fingerprint = `seed-${id}`;
    const record = {
      type: 'components' as const,
      id,
      accountId: machine.accountId,
      environmentId: machine.environmentId,
      created,
      updated: created,
      machineId: machine.id,
      licenseId: machine.licenseId,
      policyId: machine.policyId,
      productId: machine.productId,
      ownerId: machine.ownerId ?? null,
      licenseOwnerId: null,
      fingerprint,
      name: `Seeded part ${i}`,
      metadata: {},
    };
    const marker = uniqueKey(machine.accountId, 'COMPONENT_FINGERPRINT', fingerprintValue('machine', machine.id, fingerprint));
    const parents = [
      { type: 'machines' as const, id: machine.id },
      { type: 'licenses' as const, id: machine.licenseId },
      { type: 'products' as const, id: machine.productId },
      machine.ownerId ? { type: 'users' as const, id: machine.ownerId } : undefined,
    ];
    items.push(layOut(record, parents, [marker.PK]), { ...marker, ref: recordKey(machine.accountId, 'components', id).PK });
  }
  return items;
}

/** `count` licenses (with their key markers) of one policy, as licenses.create writes them (no owner, no token). */
export function licenseItems(
  policy: { id: string; accountId: string; environmentId: string | null; productId: string },
  count: number,
): Item[] {
  const items: Item[] = [];
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    const created = olderTimestamp();
    const key = `SEED-${id}`.toUpperCase();
    const record = {
      type: 'licenses' as const,
      id,
      accountId: policy.accountId,
      environmentId: policy.environmentId,
      created,
      updated: created,
      policyId: policy.id,
      productId: policy.productId,
      ownerId: null,
      scheme: null,
      key,
      name: null,
      protected: false,
      suspended: false,
      expiry: null,
      metadata: '{}',
    };
    const marker = uniqueKey(policy.accountId, LICENSE_KEY_MARKER, licenseKeyValue(key));
    const parents = [
      { type: 'policies' as const, id: policy.id },
      { type: 'products' as const, id: policy.productId },
    ];
    items.push(layOut(record, parents, [marker.PK]), {
      ...marker,
      ref: recordKey(policy.accountId, 'licenses', id).PK,
      policyId: policy.id,
      ownerId: null,
    });
  }
  return items;
}

/**
 * Writes items with BatchWriteItem, 25 a request, `parallel` requests in flight, retrying what
 * DynamoDB leaves unprocessed; then adds the records to their collections' counters, as the
 * transactions that would have made them one by one do.
 */
export async function seed(
  items: Item[],
  options: { parallel?: number; environmentId?: string | null; accountId?: string } = {},
): Promise<void> {
  const parallel = options.parallel ?? 8;
  let next = 0;
  const write = async () => {
    while (next < items.length) {
      let batch = items.slice(next, next + 25).map((Item) => ({ PutRequest: { Item } }));
      next += 25;
      while (batch.length > 0) {
        const { UnprocessedItems } = await db().send(new BatchWriteCommand({ RequestItems: { [getTable()]: batch } }));
        batch = (UnprocessedItems?.[getTable()] ?? []) as typeof batch;
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, write));
  const counts = new Map<string, { n: number; envpk?: unknown }>();
  for (const item of items) {
    for (const partition of collectionsOf(item)) {
      const current = counts.get(partition) ?? { n: 0, envpk: item.ENVPK };
      current.n++;
      counts.set(partition, current);
    }
  }
  await Promise.all(
    [...counts].map(([partition, { n, envpk }]) =>
      db().send(
        new UpdateCommand({
          TableName: getTable(),
          Key: counterKey(partition),
          UpdateExpression: envpk ? 'ADD n :n SET ENVPK = :env' : 'ADD n :n',
          ExpressionAttributeValues: envpk ? { ':n': n, ':env': envpk } : { ':n': n },
        }),
      ),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Metering

export interface Tally {
  requests: number;
  byCommand: Record<string, number>;
  rcu: number;
  wcu: number;
  /** Webhook events written (one per subscribed endpoint and change): each becomes one SQS message. */
  events: number;
}

const CAPACITY_COMMANDS = new Set([
  'GetItemCommand',
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'QueryCommand',
  'ScanCommand',
  'BatchGetItemCommand',
  'BatchWriteItemCommand',
  'TransactGetItemsCommand',
  'TransactWriteItemsCommand',
]);

let tally: Tally = { requests: 0, byCommand: {}, rcu: 0, wcu: 0, events: 0 };
let metering = false;
/** Whether writes are billed by AWS's rules (capacity.ts) rather than as DynamoDB Local reports them. */
let billing = false;

/**
 * Counts every request the store's client sends (by command name) and sums the capacity
 * DynamoDB reports for it: the meter asks each request for ReturnConsumedCapacity TOTAL.
 * While `billing`, a write's units are those AWS bills by its rules (capacity.ts), computed from
 * the items' images before and after it, read beside it by a client of the meter's own.
 * Installed once per process; counts only while `metering` is on.
 */
export function installMeter(): void {
  if ((installMeter as { done?: boolean }).done) return;
  (installMeter as { done?: boolean }).done = true;
  const meter: InitializeMiddleware<object, object> = (next, context) => async (args) => {
    const name = context.commandName ?? 'unknown';
    if (!metering || !CAPACITY_COMMANDS.has(name)) return next(args);
    const input = args.input as Record<string, unknown>;
    input.ReturnConsumedCapacity = 'TOTAL';
    tally.requests++;
    tally.byCommand[name] = (tally.byCommand[name] ?? 0) + 1;
    for (const item of (input.TransactItems ?? []) as { Put?: { Item?: { type?: unknown } } }[]) {
      if (item.Put?.Item?.type === 'webhook-events') tally.events++;
    }
    const reads = /^(Get|Query|Scan|BatchGet|TransactGet)/.test(name);
    const actions = billing && !reads ? writeActions(name, input) : [];
    const before = actions.length ? await imagesOf(actions) : undefined;
    const result = await next(args);
    const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
    let reported = 0;
    for (const entry of (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) as {
      CapacityUnits?: number;
      ReadCapacityUnits?: number;
      WriteCapacityUnits?: number;
    }[]) {
      // DynamoDB Local reports CapacityUnits only; reads and writes are told apart by command.
      reported += entry.CapacityUnits ?? (entry.ReadCapacityUnits ?? 0) + (entry.WriteCapacityUnits ?? 0);
    }
    if (reads) tally.rcu += reported;
    else if (!before) tally.wcu += reported;
    else {
      const after = await imagesOf(actions);
      const transactional = name === 'TransactWriteItemsCommand';
      for (const [i, action] of actions.entries()) {
        const billed = billedAction(action.kind, before[i], action.kind === 'check' ? before[i] : after[i], transactional);
        tally.wcu += billed.wcu;
        tally.rcu += billed.rcu;
      }
    }
    return result;
  };
  // Both clients of the store: the plain one resolves its stack once, so the meter is added before its first request.
  const options = { step: 'initialize', name: 'benchMeter', priority: 'high' } as const;
  db().middlewareStack.add(meter as never, options);
  plainDb().middlewareStack.add(meter as never, options);
  const timerOptions = { step: 'initialize', name: 'benchTimer' } as const;
  db().middlewareStack.add(timer as never, timerOptions);
  plainDb().middlewareStack.add(timer as never, timerOptions);
}

interface WriteAction {
  kind: 'write' | 'check';
  key: { PK: string; SK: string };
}

/** The items a write request touches (the store's writes go through the document client: plain values). */
function writeActions(name: string, input: Record<string, unknown>): WriteAction[] {
  const keyOf = (item: Record<string, unknown>) => ({ PK: item.PK as string, SK: item.SK as string });
  type Op = { Item?: Record<string, unknown>; Key?: Record<string, unknown> };
  if (name === 'TransactWriteItemsCommand') {
    return (input.TransactItems as { Put?: Op; Update?: Op; Delete?: Op; ConditionCheck?: Op }[]).map((entry) =>
      entry.ConditionCheck
        ? { kind: 'check', key: keyOf(entry.ConditionCheck.Key!) }
        : { kind: 'write', key: keyOf((entry.Put?.Item ?? entry.Update?.Key ?? entry.Delete?.Key)!) },
    );
  }
  if (name === 'BatchWriteItemCommand') {
    return Object.values(input.RequestItems as Record<string, { PutRequest?: Op; DeleteRequest?: Op }[]>)
      .flat()
      .map((request) => ({ kind: 'write', key: keyOf((request.PutRequest?.Item ?? request.DeleteRequest?.Key)!) }));
  }
  const op = input as Op;
  return [{ kind: 'write', key: keyOf((op.Item ?? op.Key)!) }];
}

/** The meter's own client: its reads are not counted. */
let sideClient: DynamoDBDocumentClient | undefined;

/** The items at the actions' keys as they stand now, read strongly consistently, in order (undefined: absent). */
async function imagesOf(actions: WriteAction[]): Promise<(Record<string, unknown> | undefined)[]> {
  sideClient ??= DynamoDBDocumentClient.from(new DynamoDBClient({}));
  const found = new Map<string, Record<string, unknown>>();
  const id = (key: { PK: unknown; SK: unknown }) => `${key.PK}|${key.SK}`;
  const unique = [...new Map(actions.map((action) => [id(action.key), action.key])).values()];
  for (let i = 0; i < unique.length; i += 100) {
    let request: Record<string, { Keys: Record<string, unknown>[]; ConsistentRead: boolean }> | undefined = {
      [getTable()]: { Keys: unique.slice(i, i + 100), ConsistentRead: true },
    };
    while (request && Object.keys(request).length) {
      const response = await sideClient.send(new BatchGetCommand({ RequestItems: request }));
      for (const item of response.Responses?.[getTable()] ?? []) found.set(id(item as { PK: unknown; SK: unknown }), item);
      request = response.UnprocessedKeys as typeof request;
    }
  }
  return actions.map((action) => found.get(id(action.key)));
}

/** Requests sent while `timedRequests` runs, and the time they took, by command; installed with the meter. */
let timings: Map<string, { count: number; ms: number }> | undefined;

const timer: InitializeMiddleware<object, object> = (next, context) => async (args) => {
  const into = timings;
  if (!into) return next(args);
  const started = performance.now();
  try {
    return await next(args);
  } finally {
    const name = (context.commandName ?? 'unknown').replace(/Command$/, '');
    const entry = into.get(name) ?? { count: 0, ms: 0 };
    entry.count++;
    entry.ms += performance.now() - started;
    into.set(name, entry);
  }
};

/** Runs `action` timing the store's requests (see timer). */
export async function timedRequests<T>(
  action: () => Promise<T>,
): Promise<{ result: T; requests: Map<string, { count: number; ms: number }> }> {
  const requests = new Map<string, { count: number; ms: number }>();
  timings = requests;
  try {
    return { result: await action(), requests };
  } finally {
    timings = undefined;
  }
}

/** Runs `action` with the meter on, from zero. */
export async function metered<T>(action: () => Promise<T>, options: { billed?: boolean } = {}): Promise<{ result: T; tally: Tally }> {
  tally = { requests: 0, byCommand: {}, rcu: 0, wcu: 0, events: 0 };
  metering = true;
  billing = options.billed ?? false;
  try {
    const result = await action();
    return { result, tally };
  } finally {
    metering = false;
    billing = false;
  }
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)]! : NaN;
};

export const fmt = (n: number, digits = 0) => n.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** Calls `send` `calls` times, `concurrency` calls in flight at once. */
export async function sendConcurrently(send: () => Promise<unknown>, calls: number, concurrency = 10): Promise<void> {
  let sent = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (sent++ < calls) await send();
    }),
  );
}
