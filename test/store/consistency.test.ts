/**
 * The consistency checker (test/support/consistency.ts): an account the API built, scanned from
 * the run's table, finds nothing wrong, and each kind of half-written or doubly applied state,
 * made by hand under an account of its own, is found, on the item concerned and nothing else.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { digest } from '#shared/auth/secrets.ts';
import {
  bearerTokenEntryKey,
  collectionPartition,
  counterKey,
  entitlementHolderKey,
  entitlementSetKey,
  fingerprintCountKey,
  type Key,
  licenseCoreCountKey,
  licenseMachineCountKey,
  machineFingerprintEntryKey,
  purgeMarkerKey,
  type RecordType,
  recordKey,
  subscriptionsKey,
  tokenLookupKey,
  uniqueKey,
} from '#shared/store/keys.ts';
import { newEnvironment } from '../support/client.ts';
import { checkConsistency, type Item, violationsIn } from '../support/consistency.ts';
import { doc, listeningAccount, ref } from '../support/licensing.ts';
import { tableName } from '../support/table.ts';

type Found = { rule: string; key: Key };
const sorted = (violations: Found[]) => [...violations].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
const at = (rule: string, key: Key): Found => ({ rule, key: { PK: key.PK, SK: key.SK } });
/** Exactly these violations, in any order. */
const exactly = (...violations: Found[]) => sorted(violations);

/** A hand-made account: records of its own, written as the store would, and the violations found in them. */
function handMade() {
  const accountId = randomUUID();
  const record = (type: RecordType, attributes: Record<string, unknown> = {}): Item => {
    const id = randomUUID();
    return { ...recordKey(accountId, type, id), type, id, accountId, environmentId: null, ...attributes };
  };
  /** A product, a policy, a license and a machine holding a seat with 2 cores, consistent with each other. */
  const graph = () => {
    const product = record('products');
    const policy = record('policies', { productId: product.id });
    const license = record('licenses', { policyId: policy.id, productId: product.id });
    const fingerprint = `fp-${randomUUID()}`;
    const machine = record('machines', {
      licenseId: license.id,
      policyId: policy.id,
      productId: product.id,
      fingerprint,
      licenseEnvironmentId: null,
      countedCores: 2,
    });
    const items = [
      product,
      policy,
      license,
      machine,
      { ...machineFingerprintEntryKey(accountId, digest(fingerprint), machine.id as string), machineId: machine.id, environmentId: null },
      { ...licenseMachineCountKey(accountId, license.id as string), n: 1 },
      { ...licenseCoreCountKey(accountId, license.id as string), n: 2 },
    ];
    return { product, policy, license, machine, items };
  };
  // Judged as a scan of the account would hand them over: the checker's rules alone, without
  // scanning the run's whole table once per case (the API-built account above is scanned).
  const found = async (items: Item[]) => sorted(violationsIn(items).map(({ rule, key }) => ({ rule, key })));
  return { accountId, record, graph, found };
}

describe('the consistency checker', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('finds nothing wrong in an account the API built', async () => {
    const { account, l, receiver } = await listeningAccount();
    cleanups.push(() => receiver.close());
    const shared = await newEnvironment(account, 'SHARED');
    const { license, machine, policy } = await l.graph({ policy: { maxMachines: 5, maxCores: 64 } });
    await l.api('PATCH', `/machines/${machine.id}`, { body: doc('machines', { cores: 4 }) });
    await l.component(machine.id);
    const started = await l.api('POST', '/processes', { body: doc('processes', { pid: '42' }, { machine: ref('machines', machine.id) }) });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    await l.machine(license.id, { cores: 2 }, { environment: shared.code });
    await l.licenseToken(license.id);
    const code = `feature-${randomUUID().slice(0, 8)}`;
    const entitlement = await l.api('POST', '/entitlements', { body: doc('entitlements', { name: code, code }) });
    expect(entitlement.status).toBe(201);
    const attached = await l.api('POST', `/policies/${policy.id}/entitlements`, {
      body: { data: [{ type: 'entitlements', id: entitlement.body.data.id }] },
    });
    expect(attached.status, JSON.stringify(attached.body)).toBe(200);
    const gone = await l.graph();
    expect((await l.api('DELETE', `/products/${gone.product.id}`)).status).toBe(204);

    expect(await checkConsistency({ accountId: account.id })).toEqual([]);
  });

  it("finds through a scan of the account's items what it finds in them: records, markers, counters, the slug marker", async () => {
    const { accountId, record, graph } = handMade();
    const lost = uniqueKey(accountId, 'EMAIL', `${randomUUID()}@lost.example`);
    const user = record('users', { markers: [lost.PK] });
    const { items } = graph();
    const slug = `t-${randomUUID().slice(0, 12)}`;
    const made = [
      user,
      ...items,
      { ...counterKey(collectionPartition(accountId, null, 'PRODUCT')), n: 5 },
      { PK: `ACCOUNT#${accountId}`, SK: '#', id: accountId, slug },
      { PK: `ACCOUNT_SLUG#${slug}`, SK: '#', accountId },
    ];
    const documents = DynamoDBDocumentClient.from(new DynamoDBClient({}));
    for (let i = 0; i < made.length; i += 25) {
      await documents.send(
        new BatchWriteCommand({ RequestItems: { [tableName()]: made.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }),
      );
    }
    const scanned = sorted((await checkConsistency({ accountId })).map(({ rule, key }) => ({ rule, key })));
    expect(scanned).toEqual(sorted(violationsIn(made).map(({ rule, key }) => ({ rule, key }))));
    expect(scanned.map((found) => found.rule).sort()).toEqual(['counter', 'marker-missing']);
  });

  it('finds a marker a record lists that is missing, and one naming another record', async () => {
    const { accountId, record, found } = handMade();
    const lost = uniqueKey(accountId, 'EMAIL', `${randomUUID()}@lost.example`);
    const stolen = uniqueKey(accountId, 'EMAIL', `${randomUUID()}@stolen.example`);
    const user = record('users', { markers: [lost.PK, stolen.PK] });
    const other = record('users', { markers: [] });
    expect(await found([user, other, { ...stolen, ref: other.PK }])).toEqual(
      exactly(at('marker-missing', user), at('marker-missing', user), at('marker-orphan', stolen)),
    );
  });

  it('finds a marker of a kind no entity declares, even one its record lists', async () => {
    const { accountId, record, found } = handMade();
    const undeclared = uniqueKey(accountId, 'NICKNAME', randomUUID());
    const user = record('users', { markers: [undeclared.PK] });
    expect(await found([user, { ...undeclared, ref: user.PK }])).toEqual(exactly(at('marker-kind', undeclared)));
  });

  it('finds a marker whose record is gone, and one carrying facts its record no longer holds', async () => {
    const { accountId, record, graph, found } = handMade();
    const orphan = uniqueKey(accountId, 'EMAIL', `${randomUUID()}@orphan.example`);
    const { license, items } = graph();
    const key = uniqueKey(accountId, 'LICENSE_KEY', digest(randomUUID()));
    license.markers = [key.PK];
    expect(
      await found([
        ...items,
        { ...orphan, ref: record('users').PK },
        { ...key, ref: license.PK, policyId: license.policyId, ownerId: 'someone-else' },
      ]),
    ).toEqual(exactly(at('marker-orphan', orphan), at('marker-facts', key)));
  });

  it('finds a collection counter that is not the number of its records', async () => {
    const { accountId, record, found } = handMade();
    const partition = collectionPartition(accountId, null, 'PRODUCT');
    const products = [1, 2].map(() => record('products', { GSI1PK: partition, GSI1SK: randomUUID() }));
    const counter = { ...counterKey(partition), n: 3 };
    expect(await found([...products, counter])).toEqual([at('counter', counter)]);
  });

  it('finds holder and seat counts that are not what their members make', async () => {
    const { accountId, record, graph, found } = handMade();
    const { machine, license, policy, product, items } = graph();
    const fingerprintCount = fingerprintCountKey(accountId, 'COMPONENT', digest(randomUUID()));
    const component = record('components', {
      machineId: machine.id,
      licenseId: license.id,
      policyId: policy.id,
      productId: product.id,
      counted: [fingerprintCount],
    });
    const cores = licenseCoreCountKey(accountId, license.id as string);
    const withWrongCores = items.map((item) => (item.PK === cores.PK && item.SK === cores.SK ? { ...item, n: 4 } : item));
    expect(await found([...withWrongCores, component, { ...fingerprintCount, n: 2 }])).toEqual(
      exactly(at('holder-count', cores), at('holder-count', fingerprintCount)),
    );
  });

  it('finds records whose parent or environment is missing, but not while their environment is being purged', async () => {
    const { accountId, record, graph, found } = handMade();
    const { machine, items } = graph();
    const orphanPolicy = record('policies', { productId: randomUUID() });
    const outside = record('products', { environmentId: randomUUID() });
    const purging = randomUUID();
    const pending = record('products', { environmentId: purging, ENVPK: `A#${accountId}#E#${purging}` });
    const withoutLicense = items.filter((item) => item.PK !== recordKey(accountId, 'licenses', machine.licenseId as string).PK);
    const violations = await found([
      ...withoutLicense,
      orphanPolicy,
      outside,
      pending,
      { ...purgeMarkerKey(accountId, purging), completed: 0 },
    ]);
    expect(violations).toEqual(exactly(at('parent-missing', orphanPolicy), at('parent-missing', outside), at('parent-missing', machine)));
  });

  it('finds a token lookup without its token, and a token without its lookup or register entry', async () => {
    const { accountId, record, found } = handMade();
    const user = record('users');
    const token = record('tokens', { bearerType: 'users', bearerId: user.id, digest: digest(randomUUID()) });
    const stale = tokenLookupKey(digest(randomUUID()));
    const entry = bearerTokenEntryKey(accountId, 'users', user.id as string, randomUUID());
    expect(await found([user, token, { ...stale, accountId, id: randomUUID() }, { ...entry, tokenId: entry.SK.slice(6) }])).toEqual(
      exactly(
        at('token-lookup-missing', token),
        at('token-entry-missing', token),
        at('token-lookup-orphan', stale),
        at('token-entry-orphan', entry),
      ),
    );
  });

  it('finds a machine missing from its fingerprint, and an entry whose machine is gone', async () => {
    const { accountId, graph, found } = handMade();
    const { machine, items } = graph();
    const ghost = machineFingerprintEntryKey(accountId, digest('ghost'), randomUUID());
    const withoutEntry = items.filter((item) => !item.PK.includes('MACHINES_BY_FINGERPRINT'));
    expect(await found([...withoutEntry, { ...ghost, machineId: ghost.SK.slice(8), environmentId: null }])).toEqual(
      exactly(at('fingerprint-entry-missing', machine), at('fingerprint-entry-orphan', ghost)),
    );
  });

  it('finds webhook endpoints missing from, or stale in, their subscriptions item, and entries of endpoints that are gone', async () => {
    const { accountId, record, found } = handMade();
    const endpoint = (url: string) => record('webhook-endpoints', { url, enabled: true, subscriptions: ['*'] });
    const missing = endpoint('http://127.0.0.1/missing');
    const stale = endpoint('http://127.0.0.1/stale');
    const entry = (e: Item, changes: Record<string, unknown> = {}) => ({
      id: e.id,
      url: e.url,
      enabled: e.enabled,
      subscriptions: e.subscriptions,
      ...changes,
    });
    const subscriptions = {
      ...subscriptionsKey(accountId, null),
      [`endpoint#${stale.id}`]: entry(stale, { enabled: false }),
      [`endpoint#${randomUUID()}`]: entry(stale),
    };
    expect(await found([missing, stale, subscriptions])).toEqual(
      exactly(at('subscription-missing', missing), at('subscription-stale', stale), at('subscription-orphan', subscriptions)),
    );
  });

  it('finds an entitlement set whose count is not its attachments, an attachment without its pointer or its entitlement', async () => {
    const { accountId, record, found } = handMade();
    const product = record('products');
    const policy = record('policies', { productId: product.id });
    const pointed = record('entitlements');
    const unpointed = record('entitlements');
    const deleted = randomUUID();
    const set = {
      ...entitlementSetKey(accountId, 'policies', policy.id as string),
      accountId,
      environmentId: null,
      n: 2,
      [`entitlement#${pointed.id}`]: { id: randomUUID(), created: '2024-01-01T00:00:00.000Z' },
      [`entitlement#${unpointed.id}`]: { id: randomUUID(), created: '2024-01-01T00:00:00.000Z' },
      [`entitlement#${deleted}`]: { id: randomUUID(), created: '2024-01-01T00:00:00.000Z' },
    };
    const pointer = (entitlementId: string) => ({
      ...entitlementHolderKey(accountId, entitlementId, 'policies', policy.id as string),
      holder: 'policies',
      holderId: policy.id,
    });
    // A set left behind by a removed holder is no violation.
    const leftBehind = {
      ...entitlementSetKey(accountId, 'licenses', randomUUID()),
      n: 1,
      [`entitlement#${deleted}`]: { id: randomUUID() },
    };
    const violations = await found([product, policy, pointed, unpointed, set, pointer(pointed.id as string), pointer(deleted), leftBehind]);
    expect(violations).toEqual(
      exactly(at('entitlement-set-count', set), at('entitlement-pointer-missing', set), at('parent-missing', set)),
    );
  });

  it('finds a tombstone of an entitlement that exists, and an entitlement whose removal was cut short', async () => {
    const { accountId, record, found } = handMade();
    const product = record('products');
    const policy = record('policies', { productId: product.id });
    const live = record('entitlements');
    const removing = record('entitlements', { removing: true });
    const set = {
      ...entitlementSetKey(accountId, 'policies', policy.id as string),
      accountId,
      environmentId: null,
      [`gone#${live.id}`]: true,
      [`gone#${randomUUID()}`]: true,
    };
    expect(await found([product, policy, live, removing, set])).toEqual(
      exactly(at('entitlement-tombstone-live', set), at('entitlement-removal-unfinished', removing)),
    );
  });

  it('finds an account whose slug marker does not name it', async () => {
    const { accountId, found } = handMade();
    const slug = `t-${randomUUID().slice(0, 12)}`;
    const account = { PK: `ACCOUNT#${accountId}`, SK: '#', id: accountId, slug };
    // The marker names another account, so a scan of this one's items does not hand it over.
    expect(await found([account])).toEqual(exactly(at('slug-marker', account)));
    const marker = { PK: `ACCOUNT_SLUG#${slug}`, SK: '#', accountId: randomUUID() };
    expect(await found([account, marker])).toEqual(exactly(at('slug-marker', account), at('slug-marker', marker)));
  });
});
