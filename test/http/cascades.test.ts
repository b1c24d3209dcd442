/**
 * Removals that cascade (docs/rules.md §10): a large one goes at once in its request, what hangs
 * on it is gone for every read from that moment, and the cascades worker removes it from the
 * queue; a small one goes whole in its request. Either way no record is ever left pointing at a
 * parent that is gone, whatever is created meanwhile, and the counts come out as they were before
 * the records were made. A deleted user's owner links become null.
 *
 * The table is read directly (the test stack's DynamoDB; TABLE_NAME is set), by keys and
 * account-scoped queries (keys.ts), never by a scan of a table other files write to meanwhile.
 */
import { randomUUID } from 'node:crypto';
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CascadeStep, runCascadeStep } from '#shared/licensing/cascade.ts';
import { IN_REQUEST, removeWithDescendants } from '#shared/licensing/removal.ts';
import { slotOf } from '#shared/licensing/slots.ts';
import { LICENSE_KEY_MARKER, licenseKeyValue } from '#shared/resources/licenses/entity.ts';
import {
  accountKey,
  cascadeMarkerKey,
  collectionName,
  collectionPartition,
  counterKey,
  type Key,
  licenseMachineCountKey,
  PARENT_INDEXES,
  PREFIXES,
  type RecordType,
  recordKey,
  uniqueKey,
} from '#shared/store/keys.ts';
import { call, newAccount, newNamedUser, newUser, type TestAccount } from '../support/client.ts';
import { localStackIdle } from '../support/idle.ts';
import { doc, expectCode, ids, licensing, ref } from '../support/licensing.ts';
import { until } from '../support/patience.ts';
import { collectionRecords, type Item, table, tableItem, tableName } from '../support/table.ts';

/** Every item of a collection partition (a GSI), page after page. */
const members = (keys: string, partition: string): Promise<Item[]> => collectionRecords(keys, partition);

/** Which of `keys` exist, 100 at a time. */
async function existing(keys: Key[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < keys.length; i += 100) {
    const reply = await table().send(
      new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: keys.slice(i, i + 100), ConsistentRead: true } } }),
    );
    for (const item of reply.Responses?.[tableName()] ?? []) found.add(item.PK as string);
    expect(reply.UnprocessedKeys?.[tableName()]).toBeUndefined();
  }
  return found;
}

/** Runs `tasks` with at most `width` at once. */
async function inParallel<T>(width: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await tasks[i]!();
      }
    }),
  );
  return results;
}

/** The account's global records of `type` as they are stored (its GSI1 collection). */
const recordsOf = (account: TestAccount, type: RecordType) => members('GSI1', collectionPartition(account.id, null, PREFIXES[type]));

const ANCESTORS: Partial<Record<RecordType, [RecordType, string][]>> = {
  policies: [['products', 'productId']],
  'license-users': [
    ['licenses', 'licenseId'],
    ['policies', 'policyId'],
    ['products', 'productId'],
  ],
  licenses: [
    ['policies', 'policyId'],
    ['products', 'productId'],
  ],
  machines: [
    ['licenses', 'licenseId'],
    ['policies', 'policyId'],
    ['products', 'productId'],
  ],
  components: [
    ['machines', 'machineId'],
    ['licenses', 'licenseId'],
    ['policies', 'policyId'],
    ['products', 'productId'],
  ],
  processes: [
    ['machines', 'machineId'],
    ['licenses', 'licenseId'],
    ['policies', 'policyId'],
    ['products', 'productId'],
  ],
};

/**
 * The account's records that point at a record that is gone: a parent (any ancestor) or an owner.
 * Empty when the graph is whole.
 */
async function orphansOf(account: TestAccount): Promise<string[]> {
  const orphans: string[] = [];
  for (const [type, ancestors] of Object.entries(ANCESTORS) as [RecordType, [RecordType, string][]][]) {
    const records = await recordsOf(account, type);
    const named = records.flatMap((record) => [
      ...ancestors.map(([parent, attribute]) => recordKey(account.id, parent, record[attribute])),
      ...(typeof record.ownerId === 'string' ? [recordKey(account.id, 'users', record.ownerId)] : []),
    ]);
    const found = await existing([...new Map(named.map((key) => [key.PK, key])).values()]);
    for (const record of records) {
      for (const [parent, attribute] of ancestors) {
        if (!found.has(recordKey(account.id, parent, record[attribute]).PK)) orphans.push(`${type} ${record.id}: ${parent} gone`);
      }
      if (typeof record.ownerId === 'string' && !found.has(recordKey(account.id, 'users', record.ownerId).PK)) {
        orphans.push(`${type} ${record.id}: owner gone`);
      }
    }
  }
  return orphans;
}

/** The removals under way in the account's register (shared/store/removals.ts). */
async function removalsUnderWay(accountId: string): Promise<string[]> {
  const register = await tableItem(accountKey(accountId));
  return Object.keys(register ?? {})
    .filter((name) => name.startsWith('removed#'))
    .map((name) => name.slice('removed#'.length));
}

/** Waits until the cascades of the account have finished: no removal under way, no marker of `ids` left. */
async function cascadesFinished(accountId: string, rootIds: string[] = []): Promise<void> {
  let underWay: string[] = [];
  let left: Item[] = [];
  await until(
    async () => {
      const markers = await Promise.all(rootIds.map((id) => tableItem(cascadeMarkerKey(accountId, id))));
      underWay = await removalsUnderWay(accountId);
      left = markers.filter((marker) => marker !== undefined);
      return underWay.length === 0 && left.length === 0;
    },
    () => `the cascades: ${underWay.length} under way, markers ${JSON.stringify(left)}`,
  );
}

/** The count `n` of an item (0 when absent). */
const countAt = async (key: Key) => Number((await tableItem(key))?.n ?? 0);
const collectionCount = (accountId: string, type: RecordType, parent?: { type: RecordType; id: string }) =>
  countAt(counterKey(collectionPartition(accountId, null, collectionName(type, parent))));

let account: TestAccount;
let l: ReturnType<typeof licensing>;

beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
});

/** A policy of `productId` with `count` licenses, machines on the first `withMachines`, each with a component and a process. */
async function populated(productId: string, count: number, withMachines: number, policyAttributes: Record<string, unknown> = {}) {
  const policy = await l.policy(productId, { maxMachines: 5, ...policyAttributes });
  const licenses = await inParallel(
    8,
    Array.from({ length: count }, () => () => l.license(policy.id)),
  );
  const machines = await inParallel(
    8,
    licenses.slice(0, withMachines).map((license) => () => l.machine(license.id)),
  );
  const components = await inParallel(
    8,
    machines.map((machine) => () => l.component(machine.id)),
  );
  const processes = await inParallel(
    8,
    machines.map((machine) => async () => {
      const reply = await l.api('POST', '/processes', {
        body: doc('processes', { pid: `pid-${randomUUID()}` }, { machine: ref('machines', machine.id) }),
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      return reply.body.data as { id: string };
    }),
  );
  // Users attached to a few of them: their attachments go with them.
  const user = await newNamedUser(account);
  for (const license of licenses.slice(0, 3)) {
    const attached = await l.api('POST', `/licenses/${license.id}/users`, { body: { data: [{ type: 'users', id: user.id }] } });
    expect(attached.status, JSON.stringify(attached.body)).toBe(200);
  }
  return { policy, licenses, machines, components, processes };
}

describe('a large removal', () => {
  it('removes the product at once, hides what hangs on it, and the worker removes 300 licenses with their machines, components and processes', async () => {
    const licensesBefore = await collectionCount(account.id, 'licenses');
    const machinesBefore = await collectionCount(account.id, 'machines');
    const product = await l.product();
    const big = await populated(product.id, 240, 40, { machineUniquenessStrategy: 'UNIQUE_PER_ACCOUNT' });
    const small = await populated(product.id, 60, 10);
    const licenses = [...big.licenses, ...small.licenses];
    const machines = [...big.machines, ...small.machines];
    const keyed = licenses[0]!;
    const licenseToken = await l.licenseToken(keyed.id);
    const productToken = await l.productToken(product.id);
    expect(licenses.length).toBeGreaterThan(IN_REQUEST);

    expect((await l.api('DELETE', `/products/${product.id}`)).status).toBe(204);

    // At once: the product and its tokens are gone, and so is everything under it for every read.
    expect(await removalsUnderWay(account.id)).toContain(product.id);
    expectCode(await l.api('GET', `/products/${product.id}`), 404);
    for (const [type, record] of [
      ['policies', big.policy],
      ['licenses', keyed],
      ['machines', machines[0]!],
      ['components', big.components[0]!],
      ['processes', big.processes[0]!],
    ] as const) {
      expectCode(await l.api('GET', `/${type}/${record.id}`), 404);
    }
    expectCode(await l.api('GET', `/licenses/${keyed.id}/machines`), 404);
    expectCode(await l.api('GET', `/policies/${big.policy.id}/entitlements`), 404);
    expectCode(await l.api('GET', `/licenses/${keyed.id}/entitlements`), 404);
    expectCode(await l.api('GET', `/components/${big.components[0]!.id}/machine`), 404);
    expectCode(await l.api('GET', `/machines/${machines[0]!.attributes.fingerprint}`), 404);
    expectCode(
      await l.api('PATCH', `/licenses/${keyed.id}`, { body: { data: { type: 'licenses', id: keyed.id, attributes: { name: 'x' } } } }),
      404,
    );
    expect(ids(await l.api('GET', `/licenses?policy=${big.policy.id}`))).toEqual([]);
    expect(ids(await l.api('GET', `/machines?product=${product.id}`))).toEqual([]);
    const validated = await call('POST', `${account.path}/licenses/actions/validate-key`, {
      body: { meta: { key: keyed.attributes.key } },
    });
    expect(validated.body.meta.code).toBe('NOT_FOUND');
    expectCode(await l.api('GET', '/me', { token: licenseToken }), 401);
    expectCode(await l.api('GET', '/me', { token: productToken }), 401);
    expectCode(await l.api('GET', '/me', { authorization: `License ${keyed.attributes.key}` }), 401);
    // Nothing new hangs on what is being removed.
    expectCode(
      await l.api('POST', '/machines', { body: doc('machines', { fingerprint: 'late' }, { license: ref('licenses', keyed.id) }) }),
      422,
      'LICENSE_NOT_FOUND',
    );
    expectCode(
      await l.api('POST', '/licenses', { body: doc('licenses', {}, { policy: ref('policies', big.policy.id) }) }),
      422,
      'POLICY_NOT_FOUND',
    );

    await cascadesFinished(account.id, [product.id]);
    const left = await existing([
      ...licenses.map((license) => recordKey(account.id, 'licenses', license.id)),
      ...machines.map((machine) => recordKey(account.id, 'machines', machine.id)),
      ...big.components.map((component) => recordKey(account.id, 'components', component.id)),
      ...big.processes.map((process) => recordKey(account.id, 'processes', process.id)),
      recordKey(account.id, 'policies', big.policy.id),
      recordKey(account.id, 'policies', small.policy.id),
      uniqueKey(account.id, LICENSE_KEY_MARKER, licenseKeyValue(keyed.attributes.key)),
      licenseMachineCountKey(account.id, big.licenses[0]!.id),
    ]);
    expect([...left]).toEqual([]);
    for (const [type, slot] of [
      ['licenses', slotOf('licenses', 'product')],
      ['machines', slotOf('machines', 'product')],
      ['components', slotOf('components', 'product')],
      ['processes', slotOf('processes', 'product')],
    ] as const) {
      const partition = collectionPartition(account.id, null, collectionName(type, { type: 'products', id: product.id }));
      expect(await members(PARENT_INDEXES[slot], partition), type).toEqual([]);
      expect(await countAt(counterKey(partition)), type).toBe(0);
    }
    // The counts are as they were before the product was made, and its fingerprints are free again.
    expect(await collectionCount(account.id, 'licenses')).toBe(licensesBefore);
    expect(await collectionCount(account.id, 'machines')).toBe(machinesBefore);
    const again = await l.graph({ policy: { machineUniquenessStrategy: 'UNIQUE_PER_ACCOUNT' } });
    expect((await l.machine(again.license.id, { fingerprint: big.machines[0]!.attributes.fingerprint })).id).toBeDefined();
    expect(await orphansOf(account)).toEqual([]);
  });
});

describe("the worker's steps", () => {
  it('end in the same state when the first step is delivered again after the cascade completed', async () => {
    // Steps delivered twice mid-cascade are the step protocol's (test/unit/resumable.test.ts); here a
    // real cascade, started by the outbox relay from its marker, meets its first message once more.
    const licensesBefore = await collectionCount(account.id, 'licenses');
    const product = await l.product();
    const { policy, licenses, machines, components, processes } = await populated(product.id, IN_REQUEST + 30, 20);
    const marker = cascadeMarkerKey(account.id, product.id);
    const item = await tableItem(recordKey(account.id, 'products', product.id));
    await removeWithDescendants(item as never, async () => {});
    const { kind, accountId, root, environments } = (await tableItem(marker)) as CascadeStep;
    const first: CascadeStep = { kind, accountId, root, environments };
    // Both passes done (the second is delayed by design): the worker deletes the marker last.
    await until(
      async () => (await tableItem(marker)) === undefined,
      () => 'the cascade to finish',
    );
    expect(await runCascadeStep(first, () => 60_000)).toEqual({ removed: 0, outcome: 'skipped' });
    await localStackIdle();
    expect(await tableItem(marker)).toBeUndefined();
    expect(await removalsUnderWay(account.id)).not.toContain(product.id);
    const left = await existing([
      recordKey(account.id, 'policies', policy.id),
      ...licenses.map((license) => recordKey(account.id, 'licenses', license.id)),
      ...machines.map((machine) => recordKey(account.id, 'machines', machine.id)),
      ...components.map((component) => recordKey(account.id, 'components', component.id)),
      ...processes.map((process) => recordKey(account.id, 'processes', process.id)),
    ]);
    expect([...left]).toEqual([]);
    expect(await collectionCount(account.id, 'licenses')).toBe(licensesBefore);
    expect(await collectionCount(account.id, 'licenses', { type: 'policies', id: policy.id })).toBe(0);
    expect(await orphansOf(account)).toEqual([]);
  });
});

/** A request that either makes a record (201) or is refused because what it names went meanwhile. */
async function createOrRefused(request: Promise<{ status: number; body: any }>): Promise<number> {
  const reply = await request;
  expect([201, 404, 409, 422], JSON.stringify(reply.body)).toContain(reply.status);
  return reply.status;
}

const jitter = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 40));

describe('creates racing a removal', () => {
  it('are refused or removed with it: no record is ever left under a parent that is gone', async () => {
    const statuses: number[] = [];
    const roots: string[] = [];
    for (let round = 0; round < 8; round++) {
      const g = await l.graph();
      const second = await l.machine(g.license.id);
      await l.component(g.machine.id);
      const root = (['machines', 'licenses', 'policies', 'products'] as const)[round % 4];
      const rootId = { machines: g.machine.id, licenses: g.license.id, policies: g.policy.id, products: g.product.id }[root];
      roots.push(rootId);
      const creates = [
        () =>
          l.api('POST', '/components', {
            body: doc('components', { fingerprint: `c-${randomUUID()}`, name: 'c' }, { machine: ref('machines', g.machine.id) }),
          }),
        () =>
          l.api('POST', '/components', {
            body: doc('components', { fingerprint: `c-${randomUUID()}`, name: 'c' }, { machine: ref('machines', second.id) }),
          }),
        () =>
          l.api('POST', '/processes', { body: doc('processes', { pid: `p-${randomUUID()}` }, { machine: ref('machines', g.machine.id) }) }),
        () =>
          l.api('POST', '/processes', { body: doc('processes', { pid: `p-${randomUUID()}` }, { machine: ref('machines', second.id) }) }),
        () =>
          l.api('POST', '/machines', {
            body: doc('machines', { fingerprint: `m-${randomUUID()}` }, { license: ref('licenses', g.license.id) }),
          }),
        () => l.api('POST', '/licenses', { body: doc('licenses', {}, { policy: ref('policies', g.policy.id) }) }),
      ];
      const [removed, ...created] = await Promise.all([
        jitter().then(() => l.api('DELETE', `/${root}/${rootId}`)),
        ...creates.flatMap((create) => [create, create]).map((create) => jitter().then(() => createOrRefused(create()))),
      ]);
      expect(removed.status, JSON.stringify(removed.body)).toBe(204);
      statuses.push(...created);
      // Once the removal has answered, what it removed is gone for creates too.
      const under = { machines: [0, 2], licenses: [0, 1, 2, 3, 4], policies: [0, 1, 2, 3, 4, 5], products: [0, 1, 2, 3, 4, 5] }[root];
      for (const i of under) expect(await createOrRefused(creates[i]!()), `create ${i} under a removed ${root}`).not.toBe(201);
    }
    // And a removal large enough for the queue, with creates under it while it is made.
    const product = await l.product();
    const { policy, licenses } = await populated(product.id, IN_REQUEST + 10, 5);
    const [removed, ...created] = await Promise.all([
      l.api('DELETE', `/policies/${policy.id}`),
      ...licenses.slice(0, 10).map((license) =>
        jitter().then(() =>
          createOrRefused(
            l.api('POST', '/machines', {
              body: doc('machines', { fingerprint: `m-${randomUUID()}` }, { license: ref('licenses', license.id) }),
            }),
          ),
        ),
      ),
      ...Array.from({ length: 5 }, () =>
        jitter().then(() =>
          createOrRefused(l.api('POST', '/licenses', { body: doc('licenses', {}, { policy: ref('policies', policy.id) }) })),
        ),
      ),
    ]);
    expect(removed.status).toBe(204);
    statuses.push(...created);
    // Creates that raced a removal may have won: what they made went with it.
    expect(statuses).toContain(201);
    await cascadesFinished(account.id, [...roots, policy.id]);
    expect(await orphansOf(account)).toEqual([]);
  });
});

describe("a deleted user's owner links", () => {
  /** A user owning a license (with a machine, its component and process) and a machine of someone else's license. */
  async function owner(licenses = 1) {
    const user = await newUser(account);
    const g = await l.graph({ owner: user.id });
    const more = await inParallel(
      8,
      Array.from({ length: licenses - 1 }, () => () => l.license(g.policy.id, {}, { owner: user.id })),
    );
    const component = await l.component(g.machine.id);
    const started = await l.api('POST', '/processes', { body: doc('processes', { pid: 'p' }, { machine: ref('machines', g.machine.id) }) });
    expect(started.status).toBe(201);
    const unowned = await l.license(g.policy.id);
    // A machine of a license the user is attached to (a machine's owner is one of its license's users).
    const attached = await l.api('POST', `/licenses/${unowned.id}/users`, { body: { data: [{ type: 'users', id: user.id }] } });
    expect(attached.status).toBe(200);
    const lent = await l.machine(unowned.id, {}, { owner: user.id });
    return { user, g, licenses: [g.license, ...more], component, process: started.body.data, lent };
  }

  /** The owner links of `userId` are gone: its records keep existing without an owner, and nothing lists them under the user. */
  async function expectNoLinks(userId: string, o: Awaited<ReturnType<typeof owner>>) {
    for (const type of ['licenses', 'machines', 'components', 'processes']) {
      expect(ids(await l.api('GET', `/${type}?owner=${userId}`)), type).toEqual([]);
    }
    const license = await l.api('GET', `/licenses/${o.g.license.id}`);
    expect(license.body.data.relationships.owner.data).toBeNull();
    expect((await l.api('GET', `/licenses/${o.g.license.id}/owner`)).body.data).toBeNull();
    for (const id of [o.g.machine.id, o.lent.id]) {
      expect((await l.api('GET', `/machines/${id}`)).body.data.relationships.owner.data, id).toBeNull();
    }
    // Components and processes show no owner; what they store has none.
    for (const [type, id] of [
      ['machines', o.g.machine.id],
      ['machines', o.lent.id],
      ['components', o.component.id],
      ['processes', o.process.id],
    ] as const) {
      const item = (await tableItem(recordKey(account.id, type, id)))!;
      expect(item.ownerId, `${type} ${id}`).toBeUndefined();
    }
    for (const license of o.licenses) {
      const item = (await tableItem(recordKey(account.id, 'licenses', license.id)))!;
      expect(item.ownerId).toBeUndefined();
      expect(item.GSI4PK).toBeUndefined();
      expect(
        (await tableItem(uniqueKey(account.id, LICENSE_KEY_MARKER, licenseKeyValue(license.attributes.key))))!.ownerId,
      ).toBeUndefined();
    }
    for (const type of ['licenses', 'machines', 'components', 'processes'] as RecordType[]) {
      expect(await collectionCount(account.id, type, { type: 'users', id: userId }), type).toBe(0);
    }
    const validated = await call('POST', `${account.path}/licenses/actions/validate-key`, {
      body: { meta: { key: o.g.license.attributes.key, scope: { fingerprint: o.g.machine.attributes.fingerprint } } },
    });
    expect(validated.body.meta.code).toBe('VALID');
  }

  it('become null in the delete itself when the user owns few records', async () => {
    const o = await owner();
    expect((await l.api('DELETE', `/users/${o.user.id}`)).status).toBe(204);
    expect(await tableItem(cascadeMarkerKey(account.id, o.user.id))).toBeUndefined();
    await expectNoLinks(o.user.id, o);
  });

  it('become null through the worker when the user owns many, and records created for the user meanwhile are refused or cleared', async () => {
    const o = await owner(30);
    const [removed, ...created] = await Promise.all([
      l.api('DELETE', `/users/${o.user.id}`),
      ...Array.from({ length: 4 }, () =>
        jitter().then(() =>
          createOrRefused(
            l.api('POST', '/licenses', {
              body: doc('licenses', {}, { policy: ref('policies', o.g.policy.id), owner: ref('users', o.user.id) }),
            }),
          ),
        ),
      ),
      ...Array.from({ length: 4 }, () =>
        jitter().then(() =>
          createOrRefused(
            l.api('POST', '/components', {
              body: doc('components', { fingerprint: `c-${randomUUID()}`, name: 'c' }, { machine: ref('machines', o.g.machine.id) }),
            }),
          ),
        ),
      ),
    ]);
    expect(removed.status).toBe(204);
    expect(created.length).toBe(8);
    // At once: the owner is gone, whatever the records still say.
    expect((await l.api('GET', `/licenses/${o.licenses[5]!.id}/owner`)).body.data).toBeNull();
    await cascadesFinished(account.id, [o.user.id]);
    await expectNoLinks(o.user.id, o);
    expect(await orphansOf(account)).toEqual([]);
  });
});
