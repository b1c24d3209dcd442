/**
 * Deleting an environment (docs/rules.md §15.3): the environment and its credentials stop working in
 * the same request; the purge worker then removes every other item of the environment, and
 * nothing else: every item of the account that is not the environment's is byte-for-byte
 * what it was. The purge is safe to run twice.
 *
 * The table is read directly (the test stack's DynamoDB; TABLE_NAME is set), the way the
 * service reads it, by keys and account-scoped queries (keys.ts), never by a scan of a table
 * other test files write to meanwhile: the account's records in every environment it had
 * (GSI1) and what hangs off them (uniqueness markers, collection counters, token registers
 * and lookups, license machine counts), its subscriptions and purge markers, and every item
 * of its environments (the ENV index). Rate-limit windows, counters of attempts that expire
 * by themselves, are left out.
 */
import { randomUUID } from 'node:crypto';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CODE_MARKER } from '#shared/resources/environments/entity.ts';
import {
  accountKey,
  accountSlugKey,
  bearerTokensHeadKey,
  collectionPartition,
  counterKey,
  environmentMembership,
  type Key,
  licenseMachineCountKey,
  PREFIXES,
  purgeMarkerKey,
  type RecordType,
  recordKey,
  subscriptionsKey,
  tokenLookupKey,
  uniqueKey,
} from '#shared/store/keys.ts';
import { basic, call, newAccount, newUser, onlyError, type TestAccount, userBody } from '../support/client.ts';
import { collectionRecords, type Item, membersOf, purgeFinished, queryAll, tableItem } from '../support/table.ts';

const keyOf = (item: Key) => `${item.PK}|${item.SK}`;
const ITEM = '#';

const RECORD_TYPES = (Object.keys(PREFIXES) as RecordType[]).filter((type) => type !== 'webhook-kinds');
/** Record types a token may be issued to: each has a token register. */
const BEARER_TYPES: RecordType[] = ['users', 'environments', 'products', 'licenses'];

const partition = (PK: string) =>
  queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': PK }, ConsistentRead: true });

/** What hangs off a record: its uniqueness markers, its collections' counters, and per kind its tokens' register, lookup or machine count. */
async function dependentsOf(accountId: string, record: Item): Promise<Key[]> {
  const keys: Key[] = (record.markers ?? []).map((PK: string) => ({ PK, SK: ITEM }));
  for (const index of ['GSI1PK', 'GSI2PK', 'GSI3PK', 'GSI4PK', 'GSI5PK']) if (record[index]) keys.push(counterKey(record[index]));
  const type = record.type as RecordType;
  const keysIn = async (PK: string) => (await partition(PK)).map((item): Key => ({ PK: item.PK, SK: item.SK }));
  if (BEARER_TYPES.includes(type)) keys.push(...(await keysIn(bearerTokensHeadKey(accountId, type, record.id).PK)));
  if (type === 'licenses') keys.push(...(await keysIn(licenseMachineCountKey(accountId, record.id).PK)));
  if (type === 'tokens') keys.push(tokenLookupKey(record.digest));
  return keys;
}

/**
 * The items of one account (see the top), by PK|SK; `known` are read as well, so that an item
 * found before and gone since shows up missing.
 */
async function accountItems(account: TestAccount, environmentIds: string[], known: Iterable<string> = []): Promise<Map<string, Item>> {
  const keys = new Map<string, Key>();
  const add = (key: Key) => keys.set(keyOf(key), { PK: key.PK, SK: key.SK });
  add(accountKey(account.id));
  add(accountSlugKey(account.slug));
  for (const key of known) {
    const [PK, SK] = key.split('|') as [string, string];
    add({ PK, SK });
  }
  const records: Item[] = [];
  for (const environmentId of [null, ...environmentIds]) {
    add(subscriptionsKey(account.id, environmentId));
    for (const type of RECORD_TYPES) {
      const collection = collectionPartition(account.id, environmentId, PREFIXES[type]);
      add(counterKey(collection));
      records.push(...(await collectionRecords('GSI1', collection)));
    }
  }
  for (const environmentId of environmentIds) {
    add(purgeMarkerKey(account.id, environmentId));
    for (const member of await membersOf(account.id, environmentId)) add(member as Key);
  }
  for (const record of records) {
    add(record as Key);
    for (const key of await dependentsOf(account.id, record)) add(key);
  }
  const items = new Map<string, Item>();
  for (const [key, item] of await Promise.all([...keys].map(async ([name, key]) => [name, await tableItem(key)] as const))) {
    if (item) items.set(key, item);
  }
  return items;
}

let account: TestAccount;
const envBody = (attributes: Record<string, unknown>) => ({ data: { type: 'environments', attributes } });

async function createEnv(code: string, isolationStrategy: 'ISOLATED' | 'SHARED') {
  const env = await call('POST', `${account.path}/environments`, {
    token: account.adminToken,
    body: envBody({ name: `Env ${code}`, code, isolationStrategy }),
  });
  expect(env.status, JSON.stringify(env.body)).toBe(201);
  const token = await call('POST', `${account.path}/environments/${code}/tokens`, { token: account.adminToken, environment: code });
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  return { id: env.body.data.id as string, code, token: token.body.data.attributes.token as string };
}

/** A user made from inside `code` by `token` without a password (no login needed). */
async function plainUser(token: string, code?: string) {
  const email = `p-${randomUUID().slice(0, 10)}@users.example`;
  const reply = await call('POST', `${account.path}/users`, { token, environment: code, body: userBody({ email, firstName: 'P' }) });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return { id: reply.body.data.id as string, email };
}

describe('purging a deleted environment', () => {
  let P: Awaited<ReturnType<typeof createEnv>>;
  let Q: Awaited<ReturnType<typeof createEnv>>;
  let R: Awaited<ReturnType<typeof createEnv>>;
  let pUsers: { id: string; email: string }[] = [];
  let pLogins: Awaited<ReturnType<typeof newUser>>[] = [];
  let rUsers: { id: string; email: string }[] = [];
  let globalUser: Awaited<ReturnType<typeof newUser>>;
  let qUser: Awaited<ReturnType<typeof newUser>>;
  let adminInsideP: string;
  let globalTokenMadeInQ: string;
  let secondPToken: string;

  beforeAll(async () => {
    account = await newAccount();
    const tag = randomUUID().slice(0, 6);
    [P, Q, R] = await Promise.all([
      createEnv(`purge-p-${tag}`, 'ISOLATED'),
      createEnv(`keep-q-${tag}`, 'SHARED'),
      createEnv(`purge-r-${tag}`, 'SHARED'),
    ]);
    const second = await call('POST', `${account.path}/environments/${P.id}/tokens`, { token: account.adminToken, environment: P.code });
    secondPToken = second.body.data.attributes.token;

    // P: ~30 users, 5 of them logged in (their tokens live in P).
    const logins = Promise.all(Array.from({ length: 5 }, () => newUser(account, {}, { environment: P.code, token: P.token })));
    const plain: Promise<{ id: string; email: string }>[] = [];
    for (let i = 0; i < 25; i++) plain.push(plainUser(P.token, P.code));
    // R: a few users, purged by a message sent twice.
    const rPlain = Array.from({ length: 4 }, () => plainUser(R.token, R.code));
    // What must survive: global records, a SHARED environment's records, and global tokens made inside it and inside P.
    const keep = Promise.all([
      newUser(account),
      newUser(account, {}, { environment: Q.code, token: Q.token }),
      plainUser(account.adminToken),
      plainUser(Q.token, Q.code),
    ]);
    [pLogins, pUsers, rUsers] = await Promise.all([logins, Promise.all(plain), Promise.all(rPlain)]);
    const kept = await keep;
    globalUser = kept[0];
    qUser = kept[1];
    const viaQ = await call('POST', `${account.path}/tokens`, {
      authorization: basic(globalUser.email, globalUser.password),
      environment: Q.code,
    });
    expect(viaQ.status, JSON.stringify(viaQ.body)).toBe(201);
    globalTokenMadeInQ = viaQ.body.data.attributes.token;
    const adminInP = await call('POST', `${account.path}/tokens`, {
      authorization: basic(account.adminEmail, account.adminPassword),
      environment: P.code,
    });
    expect(adminInP.status, JSON.stringify(adminInP.body)).toBe(201);
    expect(adminInP.body.data.relationships.environment.data).toBeNull();
    adminInsideP = adminInP.body.data.attributes.token;
  });

  it('DELETE stops the environment at once, the worker removes exactly its items, and they may be made again', async () => {
    const membershipP = environmentMembership(account.id, P.id);
    const membershipR = environmentMembership(account.id, R.id);
    const environments = [P.id, Q.id, R.id];
    const before = await accountItems(account, environments);
    const pItems = [...before.values()].filter((item) => item.ENVPK === membershipP);
    expect(pItems.length, 'P holds its users, tokens, markers and counters').toBeGreaterThanOrEqual(30 + 5 + 2);
    expect([...before.values()].filter((item) => item.ENVPK === membershipR).length).toBeGreaterThanOrEqual(4);
    const keep = new Map([...before].filter(([, item]) => item.ENVPK !== membershipP && item.ENVPK !== membershipR));

    const deleted = await call('DELETE', `${account.path}/environments/${P.code}`, { token: account.adminToken });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);

    // At once: the code is no environment, its tokens and its users' tokens are refused.
    const byCode = await call('GET', `${account.path}/users`, { token: account.adminToken, environment: P.code });
    expect(byCode.status).toBe(400);
    expect(onlyError(byCode).code).toBe('ENVIRONMENT_INVALID');
    expect((await call('GET', `${account.path}/users`, { token: account.adminToken, environment: P.id })).status).toBe(400);
    for (const token of [P.token, secondPToken, ...pLogins.map((u) => u.token)]) {
      for (const environment of [undefined, Q.code]) {
        const reply = await call('GET', `${account.path}/tokens`, { token, environment });
        expect(reply.status, `${token.slice(0, 8)} in ${environment ?? 'global'}: ${JSON.stringify(reply.body)}`).toBe(401);
        expect(onlyError(reply).code).toBe('TOKEN_INVALID');
      }
    }
    // Nothing else stopped: the global admin token made inside P is global and keeps working.
    expect((await call('GET', `${account.path}/users`, { token: adminInsideP })).status).toBe(200);
    expect((await call('GET', `${account.path}/users`, { token: globalTokenMadeInQ, environment: Q.code })).status).toBe(403);
    expect((await call('GET', `${account.path}/tokens`, { token: globalTokenMadeInQ, environment: Q.code })).status).toBe(200);
    expect((await call('GET', `${account.path}/tokens`, { token: qUser.token, environment: Q.code })).status).toBe(200);
    expect((await call('GET', `${account.path}/users`, { token: Q.token, environment: Q.code })).status).toBe(200);
    // P's users are out of everyone's reach at once.
    const users = await call('GET', `${account.path}/users?page[size]=100`, { token: account.adminToken });
    expect(users.body.data.some((u: any) => pUsers.some((p) => p.id === u.id))).toBe(false);

    // R: deleted too, and its purge message sent twice more by hand.
    expect((await call('DELETE', `${account.path}/environments/${R.id}`, { token: account.adminToken })).status).toBe(204);
    const sqs = new SQSClient({});
    const body = JSON.stringify({ accountId: account.id, environmentId: R.id });
    await sqs.send(new SendMessageCommand({ QueueUrl: process.env.PURGE_QUEUE_URL!, MessageBody: body }));
    await sqs.send(new SendMessageCommand({ QueueUrl: process.env.PURGE_QUEUE_URL!, MessageBody: body }));

    await Promise.all([purgeFinished(account.id, P.id), purgeFinished(account.id, R.id)]);

    const after = await accountItems(account, environments, before.keys());
    expect([...after.values()].filter((item) => item.ENVPK === membershipP || item.ENVPK === membershipR)).toEqual([]);
    // Expected differences: the two environments' own items (record, code marker) and the environments count.
    const gone = (id: string, code: string) => [
      keyOf(recordKey(account.id, 'environments', id)),
      keyOf(uniqueKey(account.id, CODE_MARKER, code.toLowerCase())),
    ];
    const expected = new Map(keep);
    for (const key of [...gone(P.id, P.code), ...gone(R.id, R.code)]) {
      expect(expected.has(key), `${key} existed before`).toBe(true);
      expected.delete(key);
    }
    const environmentsCount = keyOf(counterKey(collectionPartition(account.id, null, PREFIXES.environments)));
    const counter = expected.get(environmentsCount);
    expect(counter?.n).toBe(3);
    expected.set(environmentsCount, { ...counter, n: 1 });
    const extra = [...after.keys()].filter((key) => !expected.has(key));
    const missing = [...expected.keys()].filter((key) => !after.has(key));
    expect({ extra, missing }).toEqual({ extra: [], missing: [] });
    for (const [key, item] of expected) expect(after.get(key), key).toEqual(item);

    // The e-mail addresses of P's (and R's) users are free again, globally and in another environment.
    const again = await Promise.all([
      ...pUsers
        .slice(0, 3)
        .map((u) => call('POST', `${account.path}/users`, { token: account.adminToken, body: userBody({ email: u.email }) })),
      call('POST', `${account.path}/users`, { token: Q.token, environment: Q.code, body: userBody({ email: pLogins[0]!.email }) }),
      call('POST', `${account.path}/users`, { token: account.adminToken, body: userBody({ email: rUsers[0]!.email }) }),
    ]);
    for (const reply of again) expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    // The codes may be used again, and a new environment with P's code is empty.
    const reborn = await createEnv(P.code, 'ISOLATED');
    const list = await call('GET', `${account.path}/users`, { token: reborn.token, environment: P.code });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    expect(list.body.links.meta.count).toBe(0);
    // Old credentials of P do not come back with the code.
    expect((await call('GET', `${account.path}/users`, { token: P.token, environment: P.code })).status).toBe(401);
  });
});
