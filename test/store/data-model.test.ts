/**
 * Every access pattern of docs/data-model.md, run against DynamoDB Local through the store.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { digest } from '#shared/auth/secrets.ts';
import { provisionSigningKey, type StoredSigningKey, signingKeyOf } from '#shared/auth/signing-key.ts';
import { AttemptInProgress, claimAttempt, releaseAttempt } from '#shared/events/deliver.ts';
import { createHolder, fingerprintHold, fingerprintValue, type Level } from '#shared/licensing/fingerprints.ts';
import { parentIn, slotOf } from '#shared/licensing/slots.ts';
import { dropCountsOfLicense } from '#shared/licensing/teardown.ts';
import { findAccount, putNewAccount } from '#shared/resources/accounts/entity.ts';
import { createAccount } from '#shared/resources/accounts/service.ts';
import { COMPONENT_FINGERPRINT_MARKER, COMPONENT_FINGERPRINTS, type ComponentRecord } from '#shared/resources/components/entity.ts';
import {
  type Attachment,
  addToSet,
  attachmentsOf,
  detachEverywhere,
  dropPointers,
  effectiveEntitlementIds,
  effectiveSetKeys,
  type Holder,
  holderOf,
  isTombstoned,
  pointAt,
  removeFromSet,
  removeSetsOf,
  requireNoneHeld,
  setKeyOf,
} from '#shared/resources/entitlements/attachments.ts';
import { entitlementKeys, judgeEntitlements } from '#shared/resources/entitlements/check.ts';
import { ENTITLEMENT_CODE_MARKER, type EntitlementRecord, entitlementCodeValue } from '#shared/resources/entitlements/entity.ts';
import { type Environment, findEnvironment } from '#shared/resources/environments/entity.ts';
import { findLicenseItemByKey, LICENSE_KEY_MARKER, licenseKeyValue } from '#shared/resources/licenses/entity.ts';
import {
  findMachineItem,
  MACHINE_FINGERPRINT_MARKER,
  MACHINE_FINGERPRINTS,
  machineFingerprintValue,
} from '#shared/resources/machines/entity.ts';
import { giveSeatBack, takeSeat } from '#shared/resources/machines/seats.ts';
import { heartbeatOf } from '#shared/resources/policies/heartbeat.ts';
import { limitsOf } from '#shared/resources/policies/limits.ts';
import { dropMachineProcessCount } from '#shared/resources/processes/counts.ts';
import { dueOf, PROCESS_PID_MARKER, type ProcessRecord, processPidValue } from '#shared/resources/processes/entity.ts';
import { addProcess, recordPing } from '#shared/resources/processes/service.ts';
import { sweepProcess } from '#shared/resources/processes/sweep.ts';
import { addToken, listBearerTokens, requireStanding, revokeTokensOf, tokensOf } from '#shared/resources/tokens/service.ts';
import { EMAIL_MARKER, type UserRecord } from '#shared/resources/users/entity.ts';
import { addUser } from '#shared/resources/users/service.ts';
import { recordSubscription, subscriptionsOf } from '#shared/resources/webhook-endpoints/subscriptions.ts';
import { addWebhookEvent, ENDPOINT_SLOT, KIND_SLOT, type WebhookEventRecord } from '#shared/resources/webhook-events/entity.ts';
import { childItems } from '#shared/store/cascade.ts';
import { db, getTable } from '#shared/store/client.ts';
import { dueAttributes, dueBetween, dueChanges } from '#shared/store/due.ts';
import {
  accountKey,
  collectionKeys,
  collectionName,
  collectionPartition,
  counterKey,
  countOfShare,
  entitlementHolderKey,
  entitlementHoldersPartition,
  entitlementSetKey,
  environmentMembership,
  fingerprintCountKey,
  indexOver,
  licenseMachineCountKey,
  licenseProcessCountKey,
  machineProcessCountKey,
  onceKey,
  PARENT_INDEXES,
  recordKey,
  tokenLookupKey,
  uniqueKey,
} from '#shared/store/keys.ts';
import { listCollection, partitionItems } from '#shared/store/paging.ts';
import { getItem, getItems, getRecord, getRecordItem, type Item, toRecord } from '#shared/store/records.ts';
import { environmentScope, globalScope } from '#shared/store/scope.ts';
import { giveBackShares } from '#shared/store/shares.ts';
import { FILTERED_ATTRIBUTES, tableDefinition } from '#shared/store/table.ts';
import { Transaction } from '#shared/store/transaction.ts';

let accountId: string;
let slug: string;

async function addUsers(count: number, scope = globalScope(accountId)): Promise<UserRecord[]> {
  const users: UserRecord[] = [];
  for (let i = 0; i < count; i++) {
    const tx = new Transaction();
    users.push(await addUser(tx, scope, { email: `${randomUUID()}@patterns.example` }));
    await tx.commit();
  }
  return users;
}

async function addEnvironment(code: string, isolationStrategy: 'ISOLATED' | 'SHARED'): Promise<Environment> {
  const now = new Date().toISOString();
  const environment: Environment = {
    type: 'environments',
    id: randomUUID(),
    accountId,
    environmentId: null,
    created: now,
    updated: now,
    name: code,
    code,
    isolationStrategy,
  };
  const tx = new Transaction();
  tx.create(environment, { unique: [{ kind: 'ENVIRONMENT_CODE', value: code.toLowerCase(), taken: new Error('taken') }] });
  await tx.commit();
  return environment;
}

beforeAll(async () => {
  slug = `dm-${randomUUID().slice(0, 8)}`;
  const created = await createAccount({ slug, name: 'Patterns', email: `admin@${slug}.example`, password: 'a long password' });
  accountId = created.account.id;
});

/** Pattern 47 as validation reads it: the keys of the codes asked for and the license's sets, in one BatchGetItem. */
const checkEntitlements = async (license: { accountId: string; id: string; policyId: string }, codes: string[]) =>
  judgeEntitlements(license, codes, await getItems(entitlementKeys(license, codes)));

describe('access patterns', () => {
  it('1, 2: finds an account by id and by slug (any case)', async () => {
    expect((await findAccount(accountId))?.slug).toBe(slug);
    expect((await findAccount(slug.toUpperCase()))?.id).toBe(accountId);
    expect(await findAccount(randomUUID())).toBeUndefined();
  });

  it('3: reads a record by id only within its account and readable environments', async () => {
    const [user] = await addUsers(1);
    expect((await getRecord(globalScope(accountId), 'users', user!.id))?.email).toBe(user!.email);
    expect(await getRecord(globalScope(randomUUID()), 'users', user!.id)).toBeUndefined();
    const isolated = await addEnvironment(`iso-${randomUUID().slice(0, 6)}`, 'ISOLATED');
    expect(await getRecord(environmentScope(accountId, isolated), 'users', user!.id)).toBeUndefined();
    const shared = await addEnvironment(`sha-${randomUUID().slice(0, 6)}`, 'SHARED');
    expect(await getRecord(environmentScope(accountId, shared), 'users', user!.id)).toBeDefined();
  });

  it('4, 12: holds an e-mail through a marker that points at the user, and refuses a second holder', async () => {
    const [user] = await addUsers(1);
    const marker = await getItem(uniqueKey(accountId, EMAIL_MARKER, user!.email.toLowerCase()));
    expect(marker?.ref).toBe(recordKey(accountId, 'users', user!.id).PK);
    const tx = new Transaction();
    await addUser(tx, globalScope(accountId), { email: user!.email.toUpperCase() });
    await expect(tx.commit()).rejects.toMatchObject({ code: 'EMAIL_TAKEN' });
  });

  it('5: finds an environment by code, case-insensitively', async () => {
    const environment = await addEnvironment(`Code-${randomUUID().slice(0, 6)}`, 'ISOLATED');
    expect((await findEnvironment(accountId, environment.code.toLowerCase()))?.id).toBe(environment.id);
    expect((await findEnvironment(accountId, environment.id))?.code).toBe(environment.code);
  });

  it("6, 8, 35: finds a token by the digest of its value alone, lists a bearer's tokens, and reads its register", async () => {
    const [user] = await addUsers(1);
    const tx = new Transaction();
    const { token, value } = addToken(tx, { holder: user!, environmentId: null, kind: 'user-token' });
    await tx.commit();
    const lookup = await getItem(tokenLookupKey(digest(value)));
    expect(lookup).toMatchObject({ id: token.id, accountId, bearerKind: 'user' });
    expect(JSON.stringify(lookup)).not.toContain(value);
    const page = await listBearerTokens(globalScope(accountId), { type: 'users', id: user!.id }, { mode: 'number', number: 1, size: 10 });
    expect(page.records.map((t) => t.id)).toEqual([token.id]);
    expect(page.count).toBe(1);
    const register = await tokensOf((await getRecordItem(accountId, 'users', user!.id))!);
    expect(register).toMatchObject({ serial: 1, tokens: [{ id: token.id }] });
  });

  it('35: revokes a register of more than 100 tokens, then makes the change in a transaction of its own', async () => {
    const [user] = await addUsers(1);
    for (let made = 0; made < 120; made++) {
      const tx = new Transaction();
      addToken(tx, { holder: user!, environmentId: null, kind: 'user-token' });
      await tx.commit();
    }
    const item = (await getRecordItem(accountId, 'users', user!.id))!;
    expect((await tokensOf(item)).tokens).toHaveLength(120);
    await revokeTokensOf(item, (tx) => void tx.update(item, { status: 'BANNED' }, { missing: new Error('gone') }), false);
    expect(await tokensOf(item)).toEqual({ serial: 120, tokens: [] });
    expect((await getItem(recordKey(accountId, 'users', user!.id)))?.status).toBe('BANNED');
  });

  it('35: a token made for a user whose password changed since it was checked is refused', async () => {
    const [user] = await addUsers(1);
    const item = (await getItem(recordKey(accountId, 'users', user!.id)))!;
    let tx = new Transaction();
    tx.update(item, { passwordHash: 'another hash' }, { missing: new Error('gone') });
    await tx.commit();
    tx = new Transaction();
    addToken(tx, { holder: user!, environmentId: null, kind: 'user-token' });
    requireStanding(tx, user!, new Error('changed'));
    await expect(tx.commit()).rejects.toThrow('changed');
  });

  it('7, 9: lists a type newest first and counts it from the counter; SHARED merges its own and global', async () => {
    const shared = await addEnvironment(`merge-${randomUUID().slice(0, 6)}`, 'SHARED');
    const scope = environmentScope(accountId, shared);
    const own = await addUsers(3, scope);
    const global = await listCollection(globalScope(accountId), { type: 'users' }, { mode: 'number', number: 1, size: 100 });
    const merged = await listCollection(scope, { type: 'users' }, { mode: 'number', number: 1, size: 100 });
    expect(merged.count).toBe(global.count + 3);
    expect(merged.records.map((u) => u.id)).toEqual(
      [...own, ...global.records].sort((a, b) => (b.created + b.id).localeCompare(a.created + a.id)).map((u) => u.id),
    );
  });

  it('10, 11: pages by number and by cursor visit the same records in the same order', async () => {
    const environment = await addEnvironment(`pages-${randomUUID().slice(0, 6)}`, 'ISOLATED');
    const scope = environmentScope(accountId, environment);
    await addUsers(7, scope);
    const byNumber: string[] = [];
    for (let n = 1; n <= 3; n++) {
      const page = await listCollection(scope, { type: 'users' }, { mode: 'number', number: n, size: 3 });
      byNumber.push(...page.records.map((u) => u.id));
    }
    const byCursor: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof listCollection<'users'>>> = await listCollection(
        scope,
        { type: 'users' },
        { mode: 'cursor', cursor, size: 3 },
      );
      byCursor.push(...page.records.map((u) => u.id));
      cursor = page.nextCursor ?? null;
    } while (cursor);
    expect(byNumber).toHaveLength(7);
    expect(byCursor).toEqual(byNumber);
  });

  it('11: every collection index holds the keys and the ids lists filter on, never the record', async () => {
    const keys = [collectionKeys(), ...PARENT_INDEXES.map((_, slot) => collectionKeys(slot))];
    for (const collection of keys) {
      const index = tableDefinition.indexes.find((candidate) => candidate.name === indexOver(collection));
      expect(index).toMatchObject({ partitionKey: `${collection}PK`, sortKey: `${collection}SK`, projection: 'INCLUDE' });
      // A whole type's list compares nothing (it reads a machine's policy beside it); a parent's may compare the other parents' ids.
      expect(index?.include).toEqual(collection === 'GSI1' ? ['policyId', 'status', 'deliveryAttempt'] : [...FILTERED_ATTRIBUTES]);
    }
    const [owner] = await addUsers(1);
    const g = await addGraph(owner!.id);
    const { Items } = await db().send(
      new QueryCommand({
        TableName: getTable(),
        IndexName: indexOver(collectionKeys(slotOf('licenses', 'policy'))),
        KeyConditionExpression: 'GSI2PK = :pk',
        ExpressionAttributeValues: {
          ':pk': collectionPartition(accountId, null, collectionName('licenses', { type: 'policies', id: g.policy.id })),
        },
      }),
    );
    // The license's key, name and the rest stay in the table.
    expect(Items).toEqual([
      {
        ...recordKey(accountId, 'licenses', g.license.id),
        GSI2PK: collectionPartition(accountId, null, collectionName('licenses', { type: 'policies', id: g.policy.id })),
        GSI2SK: `${g.license.created}#${g.license.id}`,
        policyId: g.policy.id,
        productId: g.product.id,
        ownerId: owner!.id,
      },
    ]);
  });

  it('11: page[number] skips over the index, locates the page there and reads its records from the table', async () => {
    const environment = await addEnvironment(`skip-${randomUUID().slice(0, 6)}`, 'ISOLATED');
    const scope = environmentScope(accountId, environment);
    const users = (await addUsers(5, scope)).sort((a, b) => (b.created + b.id).localeCompare(a.created + a.id));
    const queried: string[] = [];
    const spy = 'data-model-index-spy';
    db().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'QueryCommand') queried.push((args.input as { IndexName?: string }).IndexName ?? 'table');
        return next(args);
      },
      { step: 'initialize', name: spy },
    );
    try {
      const page = await listCollection(scope, { type: 'users' }, { mode: 'number', number: 2, size: 2 });
      expect(page.records).toEqual(users.slice(2, 4));
      // The skip, then the page; the records (their e-mails, which no index holds) from the table.
      expect(queried).toEqual([indexOver('GSI1'), indexOver('GSI1')]);
    } finally {
      db().middlewareStack.remove(spy);
    }
  });

  it('11: a filter on an attribute the index does not hold is refused, never answered with nothing', async () => {
    const page = { mode: 'number', number: 1, size: 2 } as const;
    await expect(listCollection(globalScope(accountId), { type: 'users', where: { email: 'a@example.com' } }, page)).rejects.toThrow(
      /email/,
    );
    // The ids a parent's collection holds are no condition on a whole type's.
    await expect(listCollection(globalScope(accountId), { type: 'licenses', where: { productId: randomUUID() } }, page)).rejects.toThrow(
      /productId: GSI1_SLIM/,
    );
  });

  it('13: finds every item of an environment through the ENV index, and nothing else', async () => {
    const environment = await addEnvironment(`members-${randomUUID().slice(0, 6)}`, 'ISOLATED');
    const [user] = await addUsers(1, environmentScope(accountId, environment));
    const { Items } = await db().send(
      new QueryCommand({
        TableName: getTable(),
        IndexName: 'ENV',
        KeyConditionExpression: 'ENVPK = :env',
        ExpressionAttributeValues: { ':env': environmentMembership(accountId, environment.id) },
      }),
    );
    const keys = (Items ?? []).map((item) => item.PK as string).sort();
    expect(keys).toEqual(
      [
        recordKey(accountId, 'users', user!.id).PK,
        uniqueKey(accountId, EMAIL_MARKER, user!.email.toLowerCase()).PK,
        counterKey(collectionPartition(accountId, environment.id, 'USER')).PK,
      ].sort(),
    );
    expect(await childItems(accountId, environment.id, 'tokens', { type: 'users', id: user!.id, slot: 0 })).toEqual([]);
  });

  it('keeps counters equal to the collections they count', async () => {
    const counter = await getItem(counterKey(collectionPartition(accountId, null, 'USER')));
    const global = await listCollection(globalScope(accountId), { type: 'users' }, { mode: 'number', number: 1, size: 100 });
    expect(global.records.length).toBeGreaterThan(1);
    expect(Number(counter?.n)).toBe(global.records.length);
  });

  it("15, 16: an environment's webhook subscriptions in one item kept with its endpoints; the events of an endpoint", async () => {
    const environment = await addEnvironment(`hooks-${randomUUID().slice(0, 6)}`, 'ISOLATED');
    const now = new Date().toISOString();
    const endpoint = {
      type: 'webhook-endpoints' as const,
      id: randomUUID(),
      accountId,
      environmentId: environment.id,
      created: now,
      updated: now,
      url: 'https://127.0.0.1:9/x',
      subscriptions: ['*'],
      enabled: true,
      signingSecret: 'whsec_x',
    };
    let tx = new Transaction();
    tx.create(endpoint);
    recordSubscription(tx, endpoint);
    await tx.commit();
    expect(await subscriptionsOf(accountId, environment.id)).toEqual([
      { id: endpoint.id, url: endpoint.url, enabled: true, subscriptions: ['*'] },
    ]);
    expect((await subscriptionsOf(accountId, null)).map((entry) => entry.id)).not.toContain(endpoint.id);
    const endpoints = await listCollection(
      environmentScope(accountId, environment),
      { type: 'webhook-endpoints' },
      { mode: 'number', number: 1, size: 10 },
    );
    expect(endpoints.records.map((record) => record.id)).toEqual([endpoint.id]);

    tx = new Transaction();
    const event = addWebhookEvent(tx, {
      accountId,
      environmentId: environment.id,
      endpointId: endpoint.id,
      endpoint: endpoint.url,
      payload: '{}',
      event: 'user.created',
    });
    await tx.commit();
    const scope = environmentScope(accountId, environment);
    const page = await listCollection(
      scope,
      { type: 'webhook-events', parent: { type: 'webhook-endpoints', id: endpoint.id, slot: ENDPOINT_SLOT } },
      { mode: 'number', number: 1, size: 10 },
    );
    expect(page.records.map((e) => e.id)).toEqual([event.id]);
    expect(page.count).toBe(1);
  });

  it('17: webhook events of any of several kinds, merged newest first and counted together', async () => {
    const environment = await addEnvironment(`kinds-${randomUUID().slice(0, 6)}`, 'ISOLATED');
    const scope = environmentScope(accountId, environment);
    const made: WebhookEventRecord[] = [];
    for (const kind of ['user.created', 'user.deleted', 'token.generated', 'user.created', 'user.deleted']) {
      const tx = new Transaction();
      made.push(
        addWebhookEvent(tx, {
          accountId,
          environmentId: environment.id,
          endpointId: randomUUID(),
          endpoint: 'x',
          payload: '{}',
          event: kind,
        }),
      );
      await tx.commit();
    }
    const ref = {
      type: 'webhook-events' as const,
      anyParent: { slot: KIND_SLOT, parents: ['user.created', 'user.deleted'].map((id) => ({ type: 'webhook-kinds' as const, id })) },
    };
    const expected = made
      .filter((e) => e.event !== 'token.generated')
      .sort((a, b) => (b.created + b.id).localeCompare(a.created + a.id))
      .map((e) => e.id);
    const all = await listCollection(scope, ref, { mode: 'number', number: 1, size: 10 });
    expect(all.records.map((e) => e.id)).toEqual(expected);
    expect(all.count).toBe(4);
    const second = await listCollection(scope, ref, { mode: 'number', number: 2, size: 3 });
    expect(second.records.map((e) => e.id)).toEqual(expected.slice(3));
    const byCursor: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof listCollection<'webhook-events'>>> = await listCollection(scope, ref, {
        mode: 'cursor',
        cursor,
        size: 3,
      });
      byCursor.push(...page.records.map((e) => e.id));
      cursor = page.nextCursor ?? null;
    } while (cursor);
    expect(byCursor).toEqual(expected);
  });

  it('18: claims a delivery attempt on the event item: once, not while it runs, again once given back or its lease is over', async () => {
    // The event's item as a claim reads it, but of a type the outbox relay lets by: had it relayed
    // the event, the webhook worker could claim the attempt before this test does.
    const event = { id: randomUUID(), endpointId: randomUUID() };
    await db().send(
      new PutCommand({
        TableName: getTable(),
        Item: {
          ...recordKey(accountId, 'webhook-events', event.id),
          type: 'unrelayed-webhook-events',
          id: event.id,
          accountId,
          endpointId: event.endpointId,
          status: 'DELIVERING',
        },
      }),
    );
    const key = { accountId, webhookEventId: event.id, attempt: 1 };
    const leaseOf = (claim: Awaited<ReturnType<typeof claimAttempt>>) => {
      if (!('item' in claim)) throw new Error(`declined: ${JSON.stringify(claim)}`);
      return claim.lease;
    };
    const idOf = (claim: Awaited<ReturnType<typeof claimAttempt>>) => {
      leaseOf(claim);
      return 'id' in claim ? claim.id : '';
    };

    // Claimed, and the claim returns the event.
    const first = await claimAttempt(key, 20_000);
    expect(first).toMatchObject({ item: { id: event.id, status: 'DELIVERING', deliveryAttempt: 1, deliveryLease: leaseOf(first) } });
    // A copy while it runs: refused as in progress.
    await expect(claimAttempt(key, 20_000)).rejects.toBeInstanceOf(AttemptInProgress);
    // Given back (the run threw): the copy may run it.
    await releaseAttempt(key, idOf(first));
    const second = await claimAttempt(key, 1);
    // A run that outlived its lease is taken over; its own release then changes nothing.
    await new Promise((r) => setTimeout(r, 5));
    const third = await claimAttempt(key, 20_000);
    await releaseAttempt(key, idOf(second));
    await expect(claimAttempt(key, 20_000)).rejects.toBeInstanceOf(AttemptInProgress);

    // The outcome written (the lease ends): a copy of the message is declined, POSTing nothing.
    const item = recordKey(accountId, 'webhook-events', event.id);
    // The worker's outcome, as it writes it: a status, and the lease ends.
    const recordOutcome = (status: string) =>
      db().send(
        new UpdateCommand({
          TableName: getTable(),
          Key: item,
          UpdateExpression: 'SET #s = :s REMOVE deliveryLease',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':s': status },
        }),
      );
    await recordOutcome('FAILING');
    // It names the next attempt, for the copy to queue again in case the run that recorded it could not.
    expect(await claimAttempt(key, 20_000)).toEqual({
      declined: { status: 'FAILING', skipped: true },
      followUp: { ...key, attempt: 2, endpointId: event.endpointId },
    });
    // The third run's own release, after its outcome, changes nothing.
    await releaseAttempt(key, idOf(third));
    expect(await claimAttempt(key, 20_000)).toMatchObject({ declined: { status: 'FAILING', skipped: true } });

    // The next attempt; the earlier one is then declined, as is any attempt of a final or removed event.
    leaseOf(await claimAttempt({ ...key, attempt: 2 }, 20_000));
    expect(await claimAttempt(key, 20_000)).toEqual({ declined: { status: 'FAILING', skipped: true } });
    await recordOutcome('DELIVERED');
    expect(await claimAttempt({ ...key, attempt: 3 }, 20_000)).toEqual({ declined: { status: 'DELIVERED', skipped: true } });
    expect(await claimAttempt({ ...key, webhookEventId: randomUUID() }, 20_000)).toEqual({ declined: { status: 'GONE', skipped: true } });
  });
});

describe('signing keys', () => {
  it('38: gives an account without a signing key one, once: racing givers all get the first writer’s key', async () => {
    const account = { id: randomUUID(), slug: `k-${randomUUID().slice(0, 8)}`, name: 'Keys', protected: false, created: '', updated: '' };
    const tx = new Transaction();
    putNewAccount(tx, account, new Error('taken'));
    await tx.commit();
    const given = await Promise.all(Array.from({ length: 5 }, () => provisionSigningKey(account.id)));
    const stored = (await getItem(accountKey(account.id)))?.signingKey as StoredSigningKey;
    expect(stored.publicKey).toMatch(/^[0-9a-f]{64}$/);
    expect(given.map((key) => key.publicKey)).toEqual(Array(5).fill(stored.publicKey));
    expect((await signingKeyOf({ id: account.id })).publicKey).toBe(stored.publicKey);
  });

  it('38: gives no key to an account that does not exist', async () => {
    const id = randomUUID();
    await expect(provisionSigningKey(id)).rejects.toThrow('no longer exists');
    await expect(getItem(accountKey(id))).resolves.toBeUndefined();
  });
});

describe('rate limits', () => {
  it('20: counts hits per window and refuses past the limit without counting', async () => {
    const { hit } = await import('#shared/store/rate-limit.ts');
    const subject = `TEST#${randomUUID()}`;
    const at = Date.UTC(2026, 0, 1, 10, 30);
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await hit(subject, 3, 3600, at));
    expect(results.map((r) => [r.allowed, r.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(results[0]!.resetAt).toBe(Date.UTC(2026, 0, 1, 11) / 1000);
    expect((await hit(subject, 3, 3600, at + 3600 * 1000)).allowed).toBe(true);
  });
});

describe('acting once per message', () => {
  it("22: works once, refuses a copy while the work runs, gives the claim back when the work fails, and lets a dead holder's claim be taken over", async () => {
    const { once, ClaimInProgress } = await import('#shared/store/once.ts');
    const id = randomUUID();
    let runs = 0;
    const options = { leaseSeconds: 60 };
    // A failure gives the claim back: the retry acts.
    await expect(
      once(
        'test',
        id,
        async () => {
          runs++;
          throw new Error('failed');
        },
        options,
      ),
    ).rejects.toThrow('failed');
    expect(await getItem(onceKey('test', id))).toBeUndefined();
    // A copy arriving while the work runs is refused, not skipped.
    let finish!: () => void;
    const first = once(
      'test',
      id,
      () =>
        new Promise<void>((resolve) => {
          runs++;
          finish = resolve;
        }),
      options,
    );
    await expect.poll(() => runs).toBe(2);
    await expect(
      once(
        'test',
        id,
        async () => {
          runs++;
        },
        options,
      ),
    ).rejects.toBeInstanceOf(ClaimInProgress);
    finish();
    expect(await first).toBe(true);
    // Done: later copies are skipped.
    expect(
      await once(
        'test',
        id,
        async () => {
          runs++;
        },
        options,
      ),
    ).toBe(false);
    expect(runs).toBe(2);
    expect(await getItem(onceKey('test', id))).toMatchObject({ status: 'DONE', expiresAt: expect.any(Number) });
    // A claim whose holder died (its lease over) is taken over.
    const orphan = randomUUID();
    await db().send(
      new PutCommand({ TableName: getTable(), Item: { ...onceKey('test', orphan), status: 'IN_PROGRESS', lease: 'dead', leaseUntil: 1 } }),
    );
    expect(
      await once(
        'test',
        orphan,
        async () => {
          runs++;
        },
        options,
      ),
    ).toBe(true);
    expect(runs).toBe(3);
  });
});

/** A minimal licensing graph written straight through the store, as the services write it. */
async function addGraph(owner: string | null, maxMachines?: number) {
  const at = () => new Date().toISOString();
  const base = (type: string) => ({ type, id: randomUUID(), accountId, environmentId: null, created: at(), updated: at() });
  const product = { ...base('products'), name: 'P', url: null, metadata: {} };
  const policy = { ...base('policies'), productId: product.id, name: 'Pol', maxMachines: maxMachines ?? null };
  const license = { ...base('licenses'), policyId: policy.id, productId: product.id, ownerId: owner, key: `K-${randomUUID()}` };
  const tx = new Transaction();
  tx.create(product as never);
  tx.create(policy as never, { parents: [{ type: 'products', id: product.id }] });
  tx.create(license as never, {
    parents: [{ type: 'policies', id: policy.id }, { type: 'products', id: product.id }, owner ? { type: 'users', id: owner } : undefined],
    unique: [{ kind: LICENSE_KEY_MARKER, value: licenseKeyValue(license.key), taken: new Error('taken') }],
  });
  await tx.commit();
  return { product, policy, license, base };
}

/** Another license of the graph's policy. */
async function addLicense(g: Awaited<ReturnType<typeof addGraph>>) {
  const license = { ...g.base('licenses'), policyId: g.policy.id, productId: g.product.id, ownerId: null, key: `K-${randomUUID()}` };
  const tx = new Transaction();
  tx.create(license as never, {
    parents: [
      { type: 'policies', id: g.policy.id },
      { type: 'products', id: g.product.id },
    ],
    unique: [{ kind: LICENSE_KEY_MARKER, value: licenseKeyValue(license.key), taken: new Error('taken') }],
  });
  await tx.commit();
  return license;
}

/** Where a holder of the (global) graph sits: every scope global. */
const GLOBAL_SCOPES = { license: null, policy: null, product: null };

/**
 * A machine of the graph's (global) license, activated globally or inside `environmentId`, taking a
 * seat, its fingerprint judged by `strategy`.
 */
async function addMachine(
  g: Awaited<ReturnType<typeof addGraph>>,
  fingerprint: string,
  max?: number,
  environmentId: string | null = null,
  strategy = 'UNIQUE_PER_LICENSE',
) {
  const machine = {
    ...g.base('machines'),
    environmentId,
    licenseId: g.license.id,
    licenseEnvironmentId: null,
    policyId: g.policy.id,
    productId: g.product.id,
    ownerId: g.license.ownerId,
    fingerprint,
  };
  const tx = new Transaction();
  createHolder(
    tx,
    machine as never,
    [
      { type: 'licenses', id: g.license.id },
      { type: 'products', id: g.product.id },
      machine.ownerId ? { type: 'users', id: machine.ownerId } : undefined,
    ],
    fingerprintHold(
      MACHINE_FINGERPRINTS,
      { ...machine, scopeEnvironments: GLOBAL_SCOPES },
      fingerprint,
      strategy,
      new Error('fingerprint taken'),
    ),
  );
  takeSeat(tx, machine, 0, limitsOf({ maxMachines: max ?? null }));
  await tx.commit();
  return machine;
}

/** A component of a machine of the graph, inside `environmentId` (global when null), its fingerprint judged by `strategy`. */
async function addComponent(
  g: Awaited<ReturnType<typeof addGraph>>,
  machine: { id: string; ownerId: string | null },
  fingerprint: string,
  strategy = 'UNIQUE_PER_MACHINE',
  environmentId: string | null = null,
) {
  const component = {
    ...g.base('components'),
    environmentId,
    machineId: machine.id,
    licenseId: g.license.id,
    policyId: g.policy.id,
    productId: g.product.id,
    ownerId: machine.ownerId,
    licenseOwnerId: g.license.ownerId,
    fingerprint,
    name: 'c',
    metadata: {},
  } as unknown as ComponentRecord;
  const tx = new Transaction();
  const item = createHolder(
    tx,
    component,
    [
      { type: 'machines', id: machine.id },
      { type: 'licenses', id: g.license.id },
      { type: 'products', id: g.product.id },
      machine.ownerId ? { type: 'users', id: machine.ownerId } : undefined,
    ],
    fingerprintHold(
      COMPONENT_FINGERPRINTS,
      { ...component, scopeEnvironments: GLOBAL_SCOPES },
      fingerprint,
      strategy,
      new Error('component taken'),
    ),
  );
  await tx.commit();
  return { ...component, item };
}

/** A component as components.create wrote it before the counts: one marker, of its strategy's scope, and no count. */
async function addEarlierComponent(g: Awaited<ReturnType<typeof addGraph>>, machine: { id: string }, fingerprint: string, level: Level) {
  const component = {
    ...g.base('components'),
    machineId: machine.id,
    licenseId: g.license.id,
    policyId: g.policy.id,
    productId: g.product.id,
    ownerId: null,
    licenseOwnerId: null,
    fingerprint,
    name: 'c',
    metadata: {},
  } as unknown as ComponentRecord;
  const scopeId = { machine: machine.id, license: g.license.id, policy: g.policy.id, product: g.product.id, account: accountId }[level];
  const tx = new Transaction();
  const item = tx.create(component, {
    parents: [
      { type: 'machines', id: machine.id },
      { type: 'licenses', id: g.license.id },
      { type: 'products', id: g.product.id },
    ],
    unique: [
      { kind: COMPONENT_FINGERPRINT_MARKER, value: fingerprintValue(level, scopeId, fingerprint), taken: new Error('component taken') },
    ],
  });
  await tx.commit();
  return item;
}

/** A fingerprint's count of holders in a scope (the whole, or with `environmentId` its share), as stored. */
const holders = (kind: 'MACHINE' | 'COMPONENT', level: Level, scopeId: string, fingerprint: string, environmentId?: string) =>
  getItem(fingerprintCountKey(accountId, kind, fingerprintValue(level, scopeId, fingerprint), environmentId));

/** Deletes stored items one transaction each, as a deactivation or a component's removal does. */
async function remove(...items: Item[]) {
  for (const item of items) {
    const tx = new Transaction();
    tx.delete(item);
    await tx.commit();
  }
}

describe('licensing access patterns', () => {
  const page = { mode: 'number', number: 1, size: 100 } as const;

  it('23: license by key: the marker keyed by the SHA-256 of the key points at the license', async () => {
    const g = await addGraph(null);
    expect((await findLicenseItemByKey(globalScope(accountId), g.license.key))?.id).toBe(g.license.id);
    const marker = await getItem(uniqueKey(accountId, LICENSE_KEY_MARKER, licenseKeyValue(g.license.key)));
    expect(marker?.PK).not.toContain(g.license.key);
    expect(await findLicenseItemByKey(globalScope(accountId), 'unknown')).toBeUndefined();
  });

  it("24, 25: machine by fingerprint within a license; maxMachines is a condition on the license's machine count", async () => {
    const g = await addGraph(null, 2);
    const m = await addMachine(g, 'fp-1', 2);
    expect((await findMachineItem(globalScope(accountId), g.license.id, 'fp-1'))?.id).toBe(m.id);
    await expect(addMachine(g, 'fp-1')).rejects.toThrow('fingerprint taken');
    await addMachine(g, 'fp-2', 2);
    await expect(addMachine(g, 'fp-3', 2)).rejects.toThrow('limit');
    expect(await getItem(licenseMachineCountKey(accountId, g.license.id))).toEqual({
      ...licenseMachineCountKey(accountId, g.license.id),
      n: 2,
    });
    // The license's collection counter (what its machine list counts) is a different item.
    expect(
      Number(
        (
          await getItem(
            counterKey(collectionPartition(accountId, null, collectionName('machines', { type: 'licenses', id: g.license.id }))),
          )
        )?.n,
      ),
    ).toBe(2);
  });

  it("25: one count bounds a license's machines in every environment; a SHARED environment's machines of a global license are also its share", async () => {
    const g = await addGraph(null, 3);
    const shared = await addEnvironment(`seats-${randomUUID().slice(0, 6)}`, 'SHARED');
    await addMachine(g, 'g-1', 3);
    const inShared = await addMachine(g, 's-1', 3, shared.id);
    await addMachine(g, 's-2', 3, shared.id);
    await expect(addMachine(g, 'g-2', 3)).rejects.toThrow('limit');
    await expect(addMachine(g, 's-3', 3, shared.id)).rejects.toThrow('limit');
    const shareKey = licenseMachineCountKey(accountId, g.license.id, shared.id);
    expect(await getItem(licenseMachineCountKey(accountId, g.license.id))).toMatchObject({ n: 3 });
    expect(await getItem(shareKey)).toEqual({ ...shareKey, n: 2, ENVPK: environmentMembership(accountId, shared.id) });
    expect(countOfShare(shareKey)).toEqual(licenseMachineCountKey(accountId, g.license.id));
    expect(countOfShare(licenseMachineCountKey(accountId, g.license.id))).toBeUndefined();

    // A removal gives the seat back to both, and a license's count goes with the license.
    let tx = new Transaction();
    const item = (await getItem(recordKey(accountId, 'machines', inShared.id)))!;
    tx.delete(item);
    giveSeatBack(tx, item);
    await tx.commit();
    expect(await getItem(licenseMachineCountKey(accountId, g.license.id))).toMatchObject({ n: 2 });
    expect(await getItem(shareKey)).toMatchObject({ n: 1 });
    tx = new Transaction();
    const license = (await getRecordItem(accountId, 'licenses', g.license.id))!;
    giveSeatBack(tx, (await getItem(recordKey(accountId, 'machines', (await addMachine(g, 'g-3')).id)))!);
    dropCountsOfLicense(tx, license);
    await tx.commit();
    expect(await getItem(licenseMachineCountKey(accountId, g.license.id))).toBeUndefined();
  });

  it("37: a purged environment's shares go back to their licenses' counts, once, as they stand at the give-back", async () => {
    const g = await addGraph(null);
    const shared = await addEnvironment(`give-${randomUUID().slice(0, 6)}`, 'SHARED');
    const machine = await addMachine(g, 's-1', undefined, shared.id);
    await addMachine(g, 'g-1');
    const countKey = licenseMachineCountKey(accountId, g.license.id);
    const shareKey = licenseMachineCountKey(accountId, g.license.id, shared.id);
    const machineKey = recordKey(accountId, 'machines', machine.id);

    // A machine activated in the environment between the read of the share and the give-back.
    let racing = true;
    const spy = 'data-model-share-race';
    db().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand' && racing) {
          racing = false;
          await addMachine(g, 's-2', undefined, shared.id);
        }
        return next(args);
      },
      { step: 'initialize', name: spy },
    );
    try {
      expect(await giveBackShares([machineKey, shareKey])).toEqual([machineKey]);
    } finally {
      db().middlewareStack.remove(spy);
    }
    expect(racing).toBe(false);
    expect(await getItem(shareKey)).toBeUndefined();
    expect(await getItem(countKey)).toMatchObject({ n: 1 });
    // Again (a repeated purge step): nothing more is given back.
    expect(await giveBackShares([shareKey])).toEqual([]);
    expect(await getItem(countKey)).toMatchObject({ n: 1 });

    // The share of a license whose count went with it is deleted, and no count is made.
    await addMachine(g, 's-3', undefined, shared.id);
    const tx = new Transaction();
    dropCountsOfLicense(tx, (await getRecordItem(accountId, 'licenses', g.license.id))!);
    await tx.commit();
    expect(await giveBackShares([shareKey])).toEqual([]);
    expect(await getItem(shareKey)).toBeUndefined();
    expect(await getItem(countKey)).toBeUndefined();
  });

  it("26, 43: a component's fingerprint: a marker on its machine, its holders counted in its license, policy, product and account; a create requires its strategy's count at 0", async () => {
    const g = await addGraph(null);
    const other = await addGraph(null);
    const [m1, m2, elsewhere] = [await addMachine(g, 'a'), await addMachine(g, 'b'), await addMachine(other, 'c')];
    const c1 = await addComponent(g, m1, 'cpu', 'UNIQUE_PER_MACHINE');
    const marker = await getItem(uniqueKey(accountId, COMPONENT_FINGERPRINT_MARKER, fingerprintValue('machine', m1.id, 'cpu')));
    expect(marker?.ref).toBe(recordKey(accountId, 'components', c1.id).PK);
    const scopes = { license: g.license.id, policy: g.policy.id, product: g.product.id, account: accountId } as const;
    for (const [level, id] of Object.entries(scopes)) {
      expect(await holders('COMPONENT', level as Level, id, 'cpu')).toEqual({
        ...fingerprintCountKey(accountId, 'COMPONENT', fingerprintValue(level as Level, id, 'cpu')),
        n: 1,
      });
    }
    // The component lists the counts it is in, so its delete leaves them.
    expect((c1.item.counted as unknown[]).length).toBe(4);
    expect(toRecord('components', c1.item)).not.toHaveProperty('counted');

    // Judged in the license, the component made under UNIQUE_PER_MACHINE holds the fingerprint there.
    await expect(addComponent(g, m2, 'cpu', 'UNIQUE_PER_LICENSE')).rejects.toThrow('component taken');
    await expect(addComponent(g, m1, 'cpu', 'UNIQUE_PER_MACHINE')).rejects.toThrow('component taken');
    const c2 = await addComponent(g, m2, 'cpu', 'UNIQUE_PER_MACHINE');
    await expect(addComponent(other, elsewhere, 'cpu', 'UNIQUE_PER_ACCOUNT')).rejects.toThrow('component taken');
    const c3 = await addComponent(other, elsewhere, 'cpu', 'UNIQUE_PER_PRODUCT');
    expect(await holders('COMPONENT', 'license', g.license.id, 'cpu')).toMatchObject({ n: 2 });
    expect(await holders('COMPONENT', 'account', accountId, 'cpu')).toMatchObject({ n: 3 });

    // Deletes leave every count; a count at 0 goes.
    await remove(c1.item);
    expect(await holders('COMPONENT', 'license', g.license.id, 'cpu')).toMatchObject({ n: 1 });
    await remove(c2.item);
    expect(await holders('COMPONENT', 'license', g.license.id, 'cpu')).toBeUndefined();
    expect(await holders('COMPONENT', 'account', accountId, 'cpu')).toMatchObject({ n: 1 });
    await remove(c3.item);
    for (const [level, id] of Object.entries(scopes)) expect(await holders('COMPONENT', level as Level, id, 'cpu')).toBeUndefined();
    await addComponent(g, m2, 'cpu', 'UNIQUE_PER_ACCOUNT');
  });

  it('43: a component made before the counts holds its marker, in its own scope only', async () => {
    const g = await addGraph(null);
    const [m1, m2] = [await addMachine(g, 'a'), await addMachine(g, 'b')];
    const earlier = await addEarlierComponent(g, m1, 'disk', 'license');
    await expect(addComponent(g, m2, 'disk', 'UNIQUE_PER_LICENSE')).rejects.toThrow('component taken');
    // Wider strategies do not see it: it is in no count.
    const wider = await addComponent(g, m2, 'disk', 'UNIQUE_PER_POLICY');
    expect(await holders('COMPONENT', 'license', g.license.id, 'disk')).toMatchObject({ n: 1 });
    await remove(earlier);
    expect(
      await getItem(uniqueKey(accountId, COMPONENT_FINGERPRINT_MARKER, fingerprintValue('license', g.license.id, 'disk'))),
    ).toBeUndefined();
    expect(await holders('COMPONENT', 'license', g.license.id, 'disk')).toMatchObject({ n: 1 });
    await remove(wider.item);
    await addComponent(g, m2, 'disk', 'UNIQUE_PER_LICENSE');
  });

  it("24, 43: a machine's fingerprint: the marker on its license, its holders counted in its policy, product and account", async () => {
    const g = await addGraph(null);
    const sameProduct = { ...g, license: await addLicense(g) };
    await addMachine(g, 'host', undefined, null, 'UNIQUE_PER_LICENSE');
    await expect(addMachine(g, 'host', undefined, null, 'UNIQUE_PER_LICENSE')).rejects.toThrow('fingerprint taken');
    await expect(addMachine(sameProduct, 'host', undefined, null, 'UNIQUE_PER_POLICY')).rejects.toThrow('fingerprint taken');
    const second = await addMachine(sameProduct, 'host', undefined, null, 'UNIQUE_PER_LICENSE');
    expect((await findMachineItem(globalScope(accountId), sameProduct.license.id, 'host'))?.id).toBe(second.id);
    for (const [level, id] of [
      ['policy', g.policy.id],
      ['product', g.product.id],
      ['account', accountId],
    ] as const) {
      expect(await holders('MACHINE', level, id, 'host')).toMatchObject({ n: 2 });
    }
    // The machine's marker is the one machines held before the counts: its value has no level.
    expect(await getItem(uniqueKey(accountId, MACHINE_FINGERPRINT_MARKER, machineFingerprintValue(g.license.id, 'host')))).toBeDefined();
  });

  it('43, 37: a holder inside a SHARED environment below global scopes is counted in each scope and in the share of its environment, which the purge gives back', async () => {
    const g = await addGraph(null);
    const shared = await addEnvironment(`fp-${randomUUID().slice(0, 6)}`, 'SHARED');
    const machine = await addMachine(g, 'shared-host', undefined, shared.id, 'UNIQUE_PER_ACCOUNT');
    const component = await addComponent(g, machine, 'shared-part', 'UNIQUE_PER_ACCOUNT', shared.id);
    const inside = environmentMembership(accountId, shared.id);
    const scopes = { license: g.license.id, policy: g.policy.id, product: g.product.id, account: accountId } as const;
    const shareKeys: { PK: string; SK: string }[] = [];
    for (const [kind, fingerprint, levels] of [
      ['MACHINE', 'shared-host', ['policy', 'product', 'account']],
      ['COMPONENT', 'shared-part', ['license', 'policy', 'product', 'account']],
    ] as const) {
      for (const level of levels) {
        const whole = await holders(kind, level, scopes[level], fingerprint);
        expect(whole).toMatchObject({ n: 1 });
        expect(whole).not.toHaveProperty('ENVPK');
        const share = await holders(kind, level, scopes[level], fingerprint, shared.id);
        expect(share).toMatchObject({ n: 1, ENVPK: inside });
        expect(countOfShare(share as Item)).toEqual({ PK: whole?.PK, SK: '#' });
        shareKeys.push({ PK: share?.PK as string, SK: share?.SK as string });
      }
    }
    expect(component.item.counted).toHaveLength(8);
    // The purge deletes the records in bulk and gives the shares back: every whole count goes to 0, and goes.
    expect(await giveBackShares(shareKeys)).toEqual([]);
    for (const key of shareKeys) {
      expect(await getItem(key)).toBeUndefined();
      expect(await getItem({ PK: key.PK, SK: '#' })).toBeUndefined();
    }
  });

  it('27–30: components by machine (GSI2), license (GSI3), product (GSI4), owner (GSI5), each one partition with its counter', async () => {
    const [owner] = await addUsers(1);
    const g = await addGraph(owner!.id);
    const m1 = await addMachine(g, 'x');
    const m2 = await addMachine(g, 'y');
    const c1 = await addComponent(g, m1, 'c1');
    const c2 = await addComponent(g, m2, 'c2');
    const c3 = await addComponent(g, m1, 'c3');
    const scope = globalScope(accountId);
    const by = (type: 'machines' | 'licenses' | 'products' | 'users', id: string, slot: number) =>
      listCollection(scope, { type: 'components', parent: { type, id, slot } }, page);
    const machine = await by('machines', m1.id, slotOf('components', 'machine'));
    expect(machine.records.map((c) => c.id)).toEqual([c3.id, c1.id]);
    expect(machine.count).toBe(2);
    for (const [type, id, slot] of [
      ['licenses', g.license.id, slotOf('components', 'license')],
      ['products', g.product.id, slotOf('components', 'product')],
      ['users', owner!.id, slotOf('components', 'owner')],
    ] as const) {
      const listed = await by(type, id, slot);
      expect(listed.records.map((c) => c.id)).toEqual([c3.id, c2.id, c1.id]);
      expect(listed.count).toBe(3);
    }
  });

  it('31: AND filters read the most selective partition with a FilterExpression, counting that partition', async () => {
    const g = await addGraph(null);
    const m1 = await addMachine(g, 'x');
    const m2 = await addMachine(g, 'y');
    const [c1] = [await addComponent(g, m1, 'c1'), await addComponent(g, m2, 'c2')];
    const listed = await listCollection(
      globalScope(accountId),
      {
        type: 'components',
        parent: parentIn('components', 'license', g.license.id),
        where: { machineId: m1.id, productId: g.product.id },
      },
      { mode: 'number', number: 1, size: 10 },
    );
    expect(listed.records.map((c) => c.id)).toEqual([c1!.id]);
    expect(listed.count).toBe(1);
  });

  it("10: a page's records and what is read beside them (a machine's policy, named by its index entry) come in one BatchGetItem", async () => {
    const g = await addGraph(null);
    const m = await addMachine(g, `beside-${randomUUID()}`);
    const beside = (entry: Item) => (typeof entry.policyId === 'string' ? [recordKey(accountId, 'policies', entry.policyId)] : []);
    const byLicense = await listCollection(
      globalScope(accountId),
      { type: 'machines', parent: parentIn('machines', 'license', g.license.id) },
      { mode: 'number', number: 1, size: 10 },
      { beside },
    );
    expect(byLicense.records.map((machine) => machine.id)).toEqual([m.id]);
    expect(byLicense.beside?.map((item) => item.id)).toEqual([g.policy.id]);
    // The whole type's index holds the policy too.
    const all = await listCollection(globalScope(accountId), { type: 'machines' }, { mode: 'cursor', cursor: null, size: 1 }, { beside });
    expect(all.beside?.map((item) => item.type)).toEqual(['policies']);
  });

  it('32: licenses by policy, product and owner; policies by product; machines by license, product and owner', async () => {
    const [owner] = await addUsers(1);
    const g = await addGraph(owner!.id);
    const m = await addMachine(g, 'z');
    const scope = globalScope(accountId);
    const one = async (
      type: 'licenses' | 'policies' | 'machines',
      parent: 'policies' | 'products' | 'users' | 'licenses',
      id: string,
      slot: number,
    ) => (await listCollection(scope, { type, parent: { type: parent, id, slot } }, page)).records.map((r) => r.id);
    expect(await one('policies', 'products', g.product.id, slotOf('policies', 'product'))).toEqual([g.policy.id]);
    expect(await one('licenses', 'policies', g.policy.id, slotOf('licenses', 'policy'))).toEqual([g.license.id]);
    expect(await one('licenses', 'products', g.product.id, slotOf('licenses', 'product'))).toEqual([g.license.id]);
    expect(await one('licenses', 'users', owner!.id, slotOf('licenses', 'owner'))).toEqual([g.license.id]);
    expect(await one('machines', 'licenses', g.license.id, slotOf('machines', 'license'))).toEqual([m.id]);
    expect(await one('machines', 'products', g.product.id, slotOf('machines', 'product'))).toEqual([m.id]);
    expect(await one('machines', 'users', owner!.id, slotOf('machines', 'owner'))).toEqual([m.id]);
    // Cascades read the same partitions with childItems.
    expect((await childItems(accountId, null, 'machines', parentIn('machines', 'license', g.license.id))).map((i) => i.id)).toEqual([m.id]);
  });
});

describe('entitlement access patterns', () => {
  /** An entitlement written straight through the store, holding its code's marker. */
  async function addEntitlement(environmentId: string | null = null): Promise<EntitlementRecord> {
    const at = new Date().toISOString();
    const code = `Feature-${randomUUID()}`;
    const record: EntitlementRecord = {
      type: 'entitlements',
      id: randomUUID(),
      accountId,
      environmentId,
      created: at,
      updated: at,
      name: code,
      code,
      metadata: {},
    };
    const tx = new Transaction();
    tx.create(record, { unique: [{ kind: ENTITLEMENT_CODE_MARKER, value: entitlementCodeValue(code), taken: new Error('code taken') }] });
    await tx.commit();
    return record;
  }

  /** Attaches as the service does: the pointers first, then the set in one conditional write. */
  async function attachTo(holder: Holder, entitlements: EntitlementRecord[], changed = new Error('changed')): Promise<Attachment[]> {
    const created = new Date().toISOString();
    const attachments = entitlements.map((e) => ({ ...holder, id: randomUUID(), entitlementId: e.id, created }));
    await pointAt(attachments);
    const tx = new Transaction();
    addToSet(tx, holder, attachments, await getItem(setKeyOf(holder)), changed);
    await tx.commit();
    return attachments;
  }

  const asHolder = (record: { type: string; id: string }): Holder =>
    holderOf({ id: record.id, type: record.type as 'policies' | 'licenses', accountId, environmentId: null });

  it("44, 45: a license's effective set is its policy's set and its own, one item each; attaching is all or nothing, one of concurrent attaches wins", async () => {
    const g = await addGraph(null);
    const policy = asHolder(g.policy);
    const license = asHolder(g.license);
    const [a, b, c] = [await addEntitlement(), await addEntitlement(), await addEntitlement()];
    await attachTo(policy, [a, b]);
    await attachTo(license, [c]);

    // One item per holder, one attribute per attachment.
    const set = await getItem(entitlementSetKey(accountId, 'policies', g.policy.id));
    expect(Object.keys(set ?? {}).filter((name) => name.startsWith('entitlement#'))).toHaveLength(2);
    expect(effectiveSetKeys(g.license).map((key) => key.PK)).toEqual([
      `A#${accountId}#POLICY#${g.policy.id}#ENTITLEMENTS`,
      `A#${accountId}#LICENSE#${g.license.id}#ENTITLEMENTS`,
    ]);
    expect((await effectiveEntitlementIds(g.license)).sort()).toEqual([a.id, b.id, c.id].sort());

    // A write naming one attachment already there changes nothing, whatever else it names.
    const d = await addEntitlement();
    await expect(attachTo(license, [d, c], new Error('already there'))).rejects.toThrow('already there');
    expect((await attachmentsOf(license)).map((x) => x.entitlementId)).toEqual([c.id]);
    // Of concurrent attaches of one entitlement, one commits.
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => attachTo(license, [d])));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    // A license's attach fails while its policy holds one of its entitlements.
    const held = new Error('held by the policy');
    const tx = new Transaction();
    requireNoneHeld(tx, policy, [a.id], held);
    await expect(tx.commit()).rejects.toBe(held);

    // Detaching requires each attachment as read.
    const [own] = (await attachmentsOf(license)).filter((x) => x.entitlementId === c.id);
    const stale = { ...own!, id: randomUUID() };
    const refused = new Transaction();
    removeFromSet(refused, license, [stale], await getItem(setKeyOf(license)), new Error('stale'));
    await expect(refused.commit()).rejects.toThrow('stale');
    const detach = new Transaction();
    removeFromSet(detach, license, [own!], await getItem(setKeyOf(license)), new Error('changed'));
    await detach.commit();
    expect((await attachmentsOf(license)).map((x) => x.entitlementId)).toEqual([d.id]);

    // Of concurrent attaches of different entitlements judged on the same count, one commits (the
    // others read again: the limit is judged on what is there); the count follows the entries.
    const others = [await addEntitlement(), await addEntitlement(), await addEntitlement()];
    const counted = await getItem(setKeyOf(license));
    const racing = await Promise.allSettled(
      others.map((other) => {
        const racer = new Transaction();
        addToSet(
          racer,
          license,
          [{ ...license, id: randomUUID(), entitlementId: other.id, created: new Date().toISOString() }],
          counted,
          new Error('count changed'),
        );
        return racer.commit();
      }),
    );
    expect(racing.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect((await getItem(setKeyOf(license)))?.n).toBe((await attachmentsOf(license)).length);

    // A count at 0 after its last detach, or one that drifted from the entries, takes the next
    // attach as read and is set to the entries.
    const emptied = asHolder((await addGraph(null)).policy);
    const [first, second] = await attachTo(emptied, [await addEntitlement(), await addEntitlement()]);
    const last = new Transaction();
    removeFromSet(last, emptied, [first!, second!], await getItem(setKeyOf(emptied)), new Error('changed'));
    await last.commit();
    expect((await getItem(setKeyOf(emptied)))?.n).toBe(0);
    await attachTo(emptied, [await addEntitlement()]);
    const drifted = new Transaction();
    drifted.patch(setKeyOf(emptied), {}, { n: 5 });
    await drifted.commit();
    await attachTo(emptied, [await addEntitlement()]);
    expect((await getItem(setKeyOf(emptied)))?.n).toBe(2);
  });

  it('46: finds every holder of an entitlement in its own partition, and detaches it from each; removed holders take their sets and pointers', async () => {
    const [g1, g2] = [await addGraph(null), await addGraph(null)];
    const [shared, other] = [await addEntitlement(), await addEntitlement()];
    await attachTo(asHolder(g1.policy), [shared]);
    await attachTo(asHolder(g2.license), [shared, other]);
    const pointers = await partitionItems(undefined, entitlementHoldersPartition(accountId, shared.id));
    expect(pointers.map((p) => p.SK).sort()).toEqual([`LICENSE#${g2.license.id}`, `POLICY#${g1.policy.id}`].sort());
    // A pointer whose attachment has not committed (an attach under way, which read the set
    // before the removal) leaves a tombstone in its set: the attach fails on the set's version.
    const underWay = asHolder(g1.license);
    await pointAt([{ ...underWay, id: randomUUID(), entitlementId: shared.id, created: new Date().toISOString() }]);
    const readBefore = await getItem(setKeyOf(underWay));

    await detachEverywhere(accountId, shared.id);
    expect(await partitionItems(undefined, entitlementHoldersPartition(accountId, shared.id))).toEqual([]);
    expect(await attachmentsOf(asHolder(g1.policy))).toEqual([]);
    expect((await attachmentsOf(asHolder(g2.license))).map((x) => x.entitlementId)).toEqual([other.id]);
    expect(await attachmentsOf(underWay)).toEqual([]);
    expect(isTombstoned(await getItem(setKeyOf(underWay)), shared.id)).toBe(true);
    const late = new Transaction();
    const attachment = { ...underWay, id: randomUUID(), entitlementId: shared.id, created: new Date().toISOString() };
    addToSet(late, underWay, [attachment], readBefore, new Error('changed'));
    await expect(late.commit()).rejects.toThrow('changed');
    await attachTo(underWay, [other]);
    expect((await attachmentsOf(underWay)).map((x) => x.entitlementId)).toEqual([other.id]);
    // The set's next change clears the tombstone.
    expect(isTombstoned(await getItem(setKeyOf(underWay)), shared.id)).toBe(false);

    // A detach's pointers go after its commit, each only while it names the attachment detached:
    // an attach of the same entitlement right after has pointed it at its own.
    const [detached] = await attachmentsOf(asHolder(g2.license));
    const detach = new Transaction();
    removeFromSet(detach, asHolder(g2.license), [detached!], await getItem(setKeyOf(asHolder(g2.license))), new Error('changed'));
    await detach.commit();
    const [again] = await attachTo(asHolder(g2.license), [other]);
    await dropPointers([detached!]);
    expect((await getItem(entitlementHolderKey(accountId, other.id, 'licenses', g2.license.id)))?.attachment).toBe(again!.id);

    await removeSetsOf([g2.license as unknown as Item]);
    expect(await getItem(entitlementSetKey(accountId, 'licenses', g2.license.id))).toBeUndefined();
    expect(await getItem(entitlementHolderKey(accountId, other.id, 'licenses', g2.license.id))).toBeUndefined();
  });

  it('47: the codes a license holds: one BatchGetItem of the code markers and its two sets', async () => {
    const g = await addGraph(null);
    const [onPolicy, own, absent] = [await addEntitlement(), await addEntitlement(), await addEntitlement()];
    await attachTo(asHolder(g.policy), [onPolicy]);
    await attachTo(asHolder(g.license), [own]);
    const marker = await getItem(uniqueKey(accountId, ENTITLEMENT_CODE_MARKER, entitlementCodeValue(own.code)));
    expect(marker?.ref).toBe(recordKey(accountId, 'entitlements', own.id).PK);
    expect(await checkEntitlements(g.license, [onPolicy.code.toUpperCase(), own.code])).toBeUndefined();
    expect(await checkEntitlements(g.license, [own.code, absent.code])).toMatchObject({ code: 'ENTITLEMENTS_MISSING' });
    expect(await checkEntitlements(g.license, ['no such code'])).toMatchObject({ code: 'ENTITLEMENTS_MISSING' });
    expect(await checkEntitlements(g.license, [])).toMatchObject({ code: 'ENTITLEMENTS_SCOPE_EMPTY' });
  });
});

/** A process of a machine of the (global) graph, inside `environmentId` (global when null), under a policy with `policy`'s settings. */
async function addProcessOf(
  g: Awaited<ReturnType<typeof addGraph>>,
  machine: { id: string; environmentId: string | null; ownerId: string | null },
  pid: string,
  policy: Record<string, unknown> = {},
  environmentId: string | null = null,
) {
  const process: ProcessRecord = {
    ...(g.base('processes') as Pick<ProcessRecord, 'id' | 'accountId' | 'created' | 'updated'>),
    type: 'processes',
    environmentId,
    machineId: machine.id,
    licenseId: g.license.id,
    policyId: g.policy.id,
    productId: g.product.id,
    ownerId: machine.ownerId,
    licenseOwnerId: g.license.ownerId,
    pid,
    metadata: {},
    lastHeartbeat: new Date().toISOString(),
  };
  const tx = new Transaction();
  const item = addProcess(tx, { process, machineEnvironmentId: machine.environmentId, licenseEnvironmentId: null }, policy);
  await tx.commit();
  return { ...process, item };
}

describe('process access patterns', () => {
  const page = { mode: 'number', number: 1, size: 100 } as const;
  const processCount = async (key: { PK: string; SK: string }) => Number((await getItem(key))?.n ?? 0);

  it("51: every process is counted in its machine's and its license's counts; maxProcesses bounds the one its strategy names; a delete gives back", async () => {
    const g = await addGraph(null);
    const [m1, m2] = [await addMachine(g, 'p-1'), await addMachine(g, 'p-2')];
    const perMachine = { maxProcesses: 2 };
    await addProcessOf(g, m1, '1', perMachine);
    const second = await addProcessOf(g, m1, '2', perMachine);
    await expect(addProcessOf(g, m1, '3', perMachine)).rejects.toMatchObject({ code: 'MACHINE_PROCESS_LIMIT_EXCEEDED' });
    await expect(addProcessOf(g, m1, '2')).rejects.toMatchObject({ code: 'PID_TAKEN' });
    await addProcessOf(g, m2, '1', perMachine);
    expect(await getItem(machineProcessCountKey(accountId, m1.id))).toEqual({ ...machineProcessCountKey(accountId, m1.id), n: 2 });
    expect(await processCount(machineProcessCountKey(accountId, m2.id))).toBe(1);
    expect(await processCount(licenseProcessCountKey(accountId, g.license.id))).toBe(3);
    const perLicense = { maxProcesses: 3, processLeasingStrategy: 'PER_LICENSE' };
    await expect(addProcessOf(g, m2, '2', perLicense)).rejects.toMatchObject({ code: 'MACHINE_PROCESS_LIMIT_EXCEEDED' });
    expect(second.item.counted).toEqual([machineProcessCountKey(accountId, m1.id), licenseProcessCountKey(accountId, g.license.id)]);

    // A delete leaves what the item lists in `counted`; the pid marker goes with it.
    let tx = new Transaction();
    tx.delete(second.item);
    await tx.commit();
    expect(await processCount(machineProcessCountKey(accountId, m1.id))).toBe(1);
    expect(await processCount(licenseProcessCountKey(accountId, g.license.id))).toBe(2);
    expect(await getItem(uniqueKey(accountId, PROCESS_PID_MARKER, processPidValue(m1.id, '2')))).toBeUndefined();
    await addProcessOf(g, m2, '2', perLicense);

    // A machine's count goes with the machine, a license's with the license.
    tx = new Transaction();
    dropMachineProcessCount(tx, (await getRecordItem(accountId, 'machines', m1.id))!);
    dropCountsOfLicense(tx, (await getRecordItem(accountId, 'licenses', g.license.id))!);
    await tx.commit();
    expect(await getItem(machineProcessCountKey(accountId, m1.id))).toBeUndefined();
    expect(await getItem(licenseProcessCountKey(accountId, g.license.id))).toBeUndefined();
  });

  it("51, 37: a SHARED environment's process on a global machine is also its environment's share of each count, which the purge gives back", async () => {
    const g = await addGraph(null);
    const shared = await addEnvironment(`proc-${randomUUID().slice(0, 6)}`, 'SHARED');
    const machine = await addMachine(g, 'p-s');
    await addProcessOf(g, machine, 'global');
    const inShared = await addProcessOf(g, machine, 'shared', { maxProcesses: 2 }, shared.id);
    await expect(addProcessOf(g, machine, 'more', { maxProcesses: 2 }, shared.id)).rejects.toMatchObject({
      code: 'MACHINE_PROCESS_LIMIT_EXCEEDED',
    });
    const shares = [machineProcessCountKey(accountId, machine.id, shared.id), licenseProcessCountKey(accountId, g.license.id, shared.id)];
    for (const share of shares) {
      expect(await getItem(share)).toEqual({ ...share, n: 1, ENVPK: environmentMembership(accountId, shared.id) });
      expect(countOfShare(share)).toEqual({ PK: share.PK, SK: '#' });
    }
    expect(inShared.item.ENVPK).toBe(environmentMembership(accountId, shared.id));
    // The purge deletes the process in bulk and gives each share back, once.
    const processKey = recordKey(accountId, 'processes', inShared.id);
    expect(await giveBackShares([processKey, ...shares])).toEqual([processKey]);
    expect(await giveBackShares(shares)).toEqual([]);
    for (const share of shares) expect(await getItem(share)).toBeUndefined();
    expect(await processCount(machineProcessCountKey(accountId, machine.id))).toBe(1);
    expect(await processCount(licenseProcessCountKey(accountId, g.license.id))).toBe(1);
  });

  it('52: a ping moves a process in the due index, conditional on the heartbeat read; the sweeper removes it only as read', async () => {
    const g = await addGraph(null);
    const machine = await addMachine(g, 'p-due');
    // The graph's policy names no heartbeatDuration: 600 seconds, as the sweeper reads it.
    const p = await addProcessOf(g, machine, 'due');
    const rules = heartbeatOf(g.policy);
    const dueAt = dueOf(p.lastHeartbeat, rules).getTime();
    const found = async (from: number, to: number) => (await dueBetween(from, to)).filter((due) => due.PK === p.item.PK);
    expect(await found(dueAt - 1, dueAt)).toEqual([{ PK: p.item.PK, SK: '#', due: new Date(dueAt).toISOString() }]);

    const later = new Date(Date.parse(p.lastHeartbeat) + 30_000).toISOString();
    let tx = new Transaction();
    recordPing(tx, p.item, later, rules, new Error('pinged meanwhile'));
    await tx.commit();
    const movedTo = dueOf(later, rules).getTime();
    expect(await found(dueAt - 1, dueAt)).toEqual([]);
    expect(await found(movedTo - 1, movedTo)).toHaveLength(1);
    // A ping judged on the heartbeat before fails.
    tx = new Transaction();
    recordPing(tx, p.item, new Date(Date.parse(later) + 1000).toISOString(), rules, new Error('pinged meanwhile'));
    await expect(tx.commit()).rejects.toThrow('pinged meanwhile');
    // So does a removal of the process as it was; as it is, it goes.
    tx = new Transaction();
    tx.delete(p.item, new Error('changed'), { lastHeartbeat: p.lastHeartbeat });
    await expect(tx.commit()).rejects.toThrow('changed');
    await sweepProcess({ PK: p.item.PK, SK: p.item.SK, due: new Date(dueAt).toISOString() }, movedTo);
    expect(await getItem({ PK: p.item.PK, SK: p.item.SK })).toBeUndefined();
    expect(await found(movedTo - 1, movedTo)).toEqual([]);
    expect(await processCount(machineProcessCountKey(accountId, machine.id))).toBe(0);
  });

  it("53: a machine's processes (GSI2), a license's (GSI3), a product's (GSI4), an owner's (GSI5), each one partition with its counter", async () => {
    const [owner] = await addUsers(1);
    const g = await addGraph(owner!.id);
    const [m1, m2] = [await addMachine(g, 'q-1'), await addMachine(g, 'q-2')];
    const [p1, p2, p3] = [await addProcessOf(g, m1, '1'), await addProcessOf(g, m2, '1'), await addProcessOf(g, m1, '2')];
    const by = (type: 'machines' | 'licenses' | 'products' | 'users', id: string, slot: number) =>
      listCollection(globalScope(accountId), { type: 'processes', parent: { type, id, slot } }, page);
    const ofMachine = await by('machines', m1.id, slotOf('processes', 'machine'));
    expect(ofMachine.records.map((p) => p.id)).toEqual([p3.id, p1.id]);
    expect(ofMachine.count).toBe(2);
    for (const [type, id, slot] of [
      ['licenses', g.license.id, slotOf('processes', 'license')],
      ['products', g.product.id, slotOf('processes', 'product')],
      ['users', owner!.id, slotOf('processes', 'owner')],
    ] as const) {
      const listed = await by(type, id, slot);
      expect(listed.records.map((p) => p.id)).toEqual([p3.id, p2.id, p1.id]);
      expect(listed.count).toBe(3);
    }
    // A machine's removal reads the same partition with childItems.
    const children = await childItems(accountId, null, 'processes', parentIn('processes', 'machine', m1.id));
    expect(children.map((i) => i.id).sort()).toEqual([p1.id, p3.id].sort());
  });
});

describe('the due index', () => {
  it('49, 50: a record is put in, moved in and taken out of the index by its own writes; a sweep reads each minute after its cursor, up to its time', async () => {
    // A month ahead: minutes the stack's own sweeper does not reach during the run.
    const minute = Math.floor((Date.now() + 30 * 86_400_000) / 60_000);
    const at = (minutes: number, seconds: number) => new Date((minute + minutes) * 60_000 + seconds * 1000);
    const owner = randomUUID();
    const key = (name: string) => ({ PK: `A#${owner}#DUE_TEST#${name}`, SK: '#' });
    const put = new Transaction();
    for (const [name, due] of [
      ['a', at(0, 10)],
      ['b', at(1, 0)],
      ['c', at(1, 30)],
      ['d', at(0, 20)],
      ['e', at(1, 40)],
    ] as const) {
      put.put({ ...key(name), ...dueAttributes(due) });
    }
    await put.commit();
    expect((await getItem(key('b')))?.DUEPK).toBe(`DUE#${minute + 1}`);
    // Moved (a ping) and taken out (a reset) by an update of the record itself.
    const change = new Transaction();
    change.patch(key('d'), dueChanges(at(2, 5)));
    change.patch(key('e'), dueChanges(null));
    await change.commit();
    expect(await getItem(key('e'))).toEqual(key('e'));

    const names = (found: { PK: string }[]) =>
      found.filter((due) => due.PK.startsWith(`A#${owner}#`)).map((due) => due.PK.split('#').pop());
    // After the cursor (excluded) and up to the sweep's time (included), oldest minute first.
    expect(names(await dueBetween(at(0, 10).getTime(), at(1, 30).getTime()))).toEqual(['b', 'c']);
    expect(names(await dueBetween(at(0, 0).getTime() - 1, at(2, 59).getTime()))).toEqual(['a', 'b', 'c', 'd']);
    const [found] = await dueBetween(at(2, 0).getTime(), at(2, 10).getTime());
    expect(found).toEqual({ ...key('d'), due: at(2, 5).toISOString() });
  });
});
