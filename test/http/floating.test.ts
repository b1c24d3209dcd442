/**
 * Floating licenses (docs/rules.md §17.2, §21.3, §19.2): a policy's limits and heartbeat settings
 * with their defaults and the rules they keep together, on create and on update; the machines and
 * cores an activation may take, with the overage each strategy tolerates, under concurrent
 * activations and updates too; and what validation answers of machines, heartbeats and, under a
 * strict policy, the license's counts. Time is moved by writing a machine's `lastHeartbeat` in the
 * past, and the process counts (written by processes' own routes) are written in the table.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type Key,
  licenseCoreCountKey,
  licenseMachineCountKey,
  licenseProcessCountKey,
  machineProcessCountKey,
} from '#shared/store/keys.ts';
import { call, newAccount, type Reply, type TestAccount } from '../support/client.ts';
import { doc, expectCode, licensing, ref } from '../support/licensing.ts';
import { storeMachine } from '../support/machines.ts';
import { table, tableName } from '../support/table.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;

beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
});

type Attributes = Record<string, unknown>;
type Scope = Record<string, unknown>;
type Made = { id: string; attributes: any };

async function countOf(key: Key): Promise<number> {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return Number(Item?.n ?? 0);
}

/** A count as the processes' routes keep it. */
const setCount = (key: Key, n: number) => table().send(new PutCommand({ TableName: tableName(), Item: { ...key, n } }));

/** Moves a machine's last heartbeat `seconds` into the past (from now). */
const lastHeartbeat = (machineId: string, secondsAgo: number) =>
  storeMachine(account.id, machineId, { lastHeartbeat: new Date(Date.now() - secondsAgo * 1000).toISOString() });

/** A new policy's attributes as answered, or its refusal. */
const createPolicy = async (attributes: Attributes) => {
  const product = await l.product();
  return l.api('POST', '/policies', {
    body: doc('policies', { name: 'Floating', ...attributes }, { product: ref('products', product.id) }),
  });
};

const patchPolicy = (id: string, attributes: Attributes) => l.api('PATCH', `/policies/${id}`, { body: doc('policies', attributes) });

/** A license of a new policy with these attributes. */
async function licenseUnder(policy: Attributes = {}): Promise<{ policy: Made; license: Made }> {
  const product = await l.product();
  const made = await l.policy(product.id, policy);
  return { policy: made, license: await l.license(made.id) };
}

const activate = (licenseId: string, attributes: Attributes = {}) =>
  l.api('POST', '/machines', {
    body: doc('machines', { fingerprint: `f-${randomUUID()}`, ...attributes }, { license: ref('licenses', licenseId) }),
  });

const patchMachine = (id: string, attributes: Attributes) => l.api('PATCH', `/machines/${id}`, { body: doc('machines', attributes) });

function expectMachineLimit(reply: Reply) {
  expect(expectCode(reply, 422, 'MACHINE_LIMIT_EXCEEDED').source).toEqual({ pointer: '/data' });
}

function expectCoreLimit(reply: Reply) {
  expect(expectCode(reply, 422, 'MACHINE_CORE_LIMIT_EXCEEDED').source).toEqual({ pointer: '/data' });
}

/** Activates `n` machines one after another, each expected to fit. */
async function machines(licenseId: string, n: number, attributes: Attributes = {}): Promise<Made[]> {
  const made: Made[] = [];
  for (let i = 0; i < n; i++) {
    const reply = await activate(licenseId, attributes);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    made.push(reply.body.data);
  }
  return made;
}

const machineCount = (licenseId: string) => countOf(licenseMachineCountKey(account.id, licenseId));
const coreCount = (licenseId: string) => countOf(licenseCoreCountKey(account.id, licenseId));

/** The verdict of validate-key, and of validate by id as the admin (checked to agree): [code, valid]. */
async function verdict(license: Made, scope?: Scope): Promise<[string, boolean]> {
  const meta = scope ? { scope } : {};
  const [byKey, byId] = await Promise.all([
    call('POST', `${account.path}/licenses/actions/validate-key`, { body: { meta: { key: license.attributes.key, ...meta } } }),
    call('POST', `${account.path}/licenses/${license.id}/actions/validate`, { token: account.adminToken, body: { meta } }),
  ]);
  for (const reply of [byKey, byId]) expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect([byId.body.meta.code, byId.body.meta.valid], 'both routes agree').toEqual([byKey.body.meta.code, byKey.body.meta.valid]);
  return [byKey.body.meta.code, byKey.body.meta.valid];
}

describe.concurrent('policy attributes', () => {
  const DEFAULTS = {
    floating: true,
    strict: false,
    maxMachines: null,
    maxCores: null,
    maxProcesses: null,
    overageStrategy: 'NO_OVERAGE',
    processLeasingStrategy: 'PER_MACHINE',
    requireHeartbeat: false,
    heartbeatDuration: null,
    heartbeatCullStrategy: 'DEACTIVATE_DEAD',
    heartbeatResurrectionStrategy: 'NO_REVIVE',
    heartbeatBasis: 'FROM_FIRST_PING',
  };

  it('a policy shows every limit and heartbeat setting, each given or its default', async () => {
    const plain = await createPolicy({});
    expect(plain.status, JSON.stringify(plain.body)).toBe(201);
    expect(plain.body.data.attributes).toMatchObject(DEFAULTS);
    expect((await l.api('GET', `/policies/${plain.body.data.id}`)).body.data.attributes).toMatchObject(DEFAULTS);

    const given = {
      floating: true,
      strict: true,
      maxMachines: 8,
      maxCores: 16,
      maxProcesses: 4,
      overageStrategy: 'ALLOW_1_25X_OVERAGE',
      processLeasingStrategy: 'PER_LICENSE',
      requireHeartbeat: true,
      heartbeatDuration: 60,
      heartbeatCullStrategy: 'KEEP_DEAD',
      heartbeatResurrectionStrategy: 'ALWAYS_REVIVE',
      heartbeatBasis: 'FROM_FIRST_PING',
    };
    const full = await createPolicy(given);
    expect(full.status, JSON.stringify(full.body)).toBe(201);
    expect(full.body.data.attributes).toMatchObject(given);
    for (const strategy of ['1_MINUTE_REVIVE', '2_MINUTE_REVIVE', '5_MINUTE_REVIVE', '10_MINUTE_REVIVE', '15_MINUTE_REVIVE', 'NO_REVIVE']) {
      const reply = await createPolicy({ heartbeatResurrectionStrategy: strategy });
      expect(reply.status, strategy).toBe(201);
      expect(reply.body.data.attributes.heartbeatResurrectionStrategy).toBe(strategy);
    }
  });

  it('floating follows maxMachines and heartbeatBasis follows requireHeartbeat, unless given', async () => {
    const nodeLocked = await createPolicy({ maxMachines: 1 });
    expect(nodeLocked.body.data.attributes).toMatchObject({ maxMachines: 1, floating: false });
    // floating false alone makes a policy for one machine.
    const single = await createPolicy({ floating: false });
    expect(single.body.data.attributes).toMatchObject({ maxMachines: 1, floating: false });
    // A floating policy may still hold one machine, when it says so.
    expect((await createPolicy({ floating: true, maxMachines: 1 })).body.data.attributes).toMatchObject({ maxMachines: 1, floating: true });
    expect((await createPolicy({ requireHeartbeat: true })).body.data.attributes.heartbeatBasis).toBe('FROM_CREATION');

    // Not given, the defaults follow the attributes they depend on as these change.
    const id = nodeLocked.body.data.id;
    expect((await patchPolicy(id, { maxMachines: 3 })).body.data.attributes).toMatchObject({ maxMachines: 3, floating: true });
    expect((await patchPolicy(id, { maxMachines: null })).body.data.attributes).toMatchObject({ maxMachines: null, floating: true });
    expect((await patchPolicy(id, { maxMachines: 1 })).body.data.attributes.floating).toBe(false);
    expect((await patchPolicy(id, { requireHeartbeat: true })).body.data.attributes.heartbeatBasis).toBe('FROM_CREATION');
    expect((await patchPolicy(id, { requireHeartbeat: false })).body.data.attributes.heartbeatBasis).toBe('FROM_FIRST_PING');
    // Given, they stay.
    const kept = (await patchPolicy(id, { floating: true, requireHeartbeat: true, heartbeatBasis: 'FROM_FIRST_PING' })).body.data;
    expect(kept.attributes).toMatchObject({ maxMachines: 1, floating: true, heartbeatBasis: 'FROM_FIRST_PING' });
    expect((await patchPolicy(id, { maxMachines: 2 })).body.data.attributes.floating).toBe(true);
    expect((await patchPolicy(id, { maxMachines: 1 })).body.data.attributes.floating).toBe(true);
  });

  /** [attributes, code, pointer]: each broken on a policy of the defaults. */
  const BROKEN: [Attributes, string, string][] = [
    [{ maxMachines: 0 }, 'MAX_MACHINES_INVALID', 'maxMachines'],
    [{ maxMachines: 2_147_483_648 }, 'MAX_MACHINES_INVALID', 'maxMachines'],
    [{ maxCores: 0 }, 'MAX_CORES_INVALID', 'maxCores'],
    [{ maxProcesses: -1 }, 'MAX_PROCESSES_INVALID', 'maxProcesses'],
    [{ floating: false, maxMachines: 2 }, 'MAX_MACHINES_INVALID', 'maxMachines'],
    [{ floating: false, maxMachines: null }, 'MAX_MACHINES_INVALID', 'maxMachines'],
    [{ overageStrategy: 'SOMETIMES' }, 'OVERAGE_STRATEGY_NOT_ALLOWED', 'overageStrategy'],
    [{ maxMachines: 1, overageStrategy: 'ALLOW_1_25X_OVERAGE' }, 'OVERAGE_STRATEGY_NOT_ALLOWED', 'overageStrategy'],
    [{ maxMachines: 1, overageStrategy: 'ALLOW_1_5X_OVERAGE' }, 'OVERAGE_STRATEGY_NOT_ALLOWED', 'overageStrategy'],
    [{ maxMachines: 6, overageStrategy: 'ALLOW_1_25X_OVERAGE' }, 'OVERAGE_STRATEGY_NOT_ALLOWED', 'overageStrategy'],
    [{ maxCores: 2, overageStrategy: 'ALLOW_1_25X_OVERAGE' }, 'OVERAGE_STRATEGY_NOT_ALLOWED', 'overageStrategy'],
    [{ maxProcesses: 10, overageStrategy: 'ALLOW_1_25X_OVERAGE' }, 'OVERAGE_STRATEGY_NOT_ALLOWED', 'overageStrategy'],
    [{ maxMachines: 3, overageStrategy: 'ALLOW_1_5X_OVERAGE' }, 'OVERAGE_STRATEGY_NOT_ALLOWED', 'overageStrategy'],
    [{ maxCores: 5, overageStrategy: 'ALLOW_1_5X_OVERAGE' }, 'OVERAGE_STRATEGY_NOT_ALLOWED', 'overageStrategy'],
    [{ maxProcesses: 1, overageStrategy: 'ALLOW_1_5X_OVERAGE' }, 'OVERAGE_STRATEGY_NOT_ALLOWED', 'overageStrategy'],
    [{ processLeasingStrategy: 'PER_USER' }, 'PROCESS_LEASING_STRATEGY_NOT_ALLOWED', 'processLeasingStrategy'],
    [{ heartbeatDuration: 59 }, 'HEARTBEAT_DURATION_INVALID', 'heartbeatDuration'],
    [{ heartbeatDuration: 2_147_483_648 }, 'HEARTBEAT_DURATION_INVALID', 'heartbeatDuration'],
    [{ heartbeatCullStrategy: 'CULL' }, 'HEARTBEAT_CULL_STRATEGY_NOT_ALLOWED', 'heartbeatCullStrategy'],
    [{ heartbeatResurrectionStrategy: 'ALWAYS_REVIVE' }, 'HEARTBEAT_CULL_STRATEGY_NOT_ALLOWED', 'heartbeatCullStrategy'],
    [
      { heartbeatResurrectionStrategy: 'ALWAYS_REVIVE', heartbeatCullStrategy: 'DEACTIVATE_DEAD' },
      'HEARTBEAT_CULL_STRATEGY_NOT_ALLOWED',
      'heartbeatCullStrategy',
    ],
    [{ heartbeatResurrectionStrategy: '3_MINUTE_REVIVE' }, 'HEARTBEAT_RESURRECTION_STRATEGY_NOT_ALLOWED', 'heartbeatResurrectionStrategy'],
    [{ heartbeatBasis: 'FROM_CREATION' }, 'HEARTBEAT_BASIS_NOT_ALLOWED', 'heartbeatBasis'],
    [{ heartbeatBasis: 'FROM_FIRST_VALIDATION' }, 'HEARTBEAT_BASIS_NOT_ALLOWED', 'heartbeatBasis'],
  ];

  /** Kept: each rule's other side. */
  const KEPT: Attributes[] = [
    { maxMachines: 2_147_483_647, maxCores: 1, maxProcesses: 1 },
    { floating: false, maxMachines: 1, overageStrategy: 'ALLOW_2X_OVERAGE' },
    { maxMachines: 1, overageStrategy: 'ALWAYS_ALLOW_OVERAGE' },
    { maxMachines: 8, maxCores: 4, maxProcesses: 12, overageStrategy: 'ALLOW_1_25X_OVERAGE' },
    { maxMachines: 2, maxCores: 6, maxProcesses: null, overageStrategy: 'ALLOW_1_5X_OVERAGE' },
    { overageStrategy: 'ALLOW_1_25X_OVERAGE' },
    { heartbeatDuration: 60 },
    { heartbeatDuration: null },
    { heartbeatResurrectionStrategy: 'ALWAYS_REVIVE', heartbeatCullStrategy: 'KEEP_DEAD' },
    { requireHeartbeat: true, heartbeatBasis: 'FROM_CREATION' },
    { requireHeartbeat: true, heartbeatBasis: 'FROM_FIRST_PING' },
  ];

  it('every rule on create: 422 with its code at its attribute; each rule kept creates', async () => {
    await Promise.all(
      BROKEN.map(async ([attributes, code, attribute]) => {
        const error = expectCode(await createPolicy(attributes), 422, code);
        expect(error.source, JSON.stringify(attributes)).toEqual({ pointer: `/data/attributes/${attribute}` });
      }),
    );
    for (const attributes of KEPT) {
      const reply = await createPolicy(attributes);
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expect(reply.body.data.attributes).toMatchObject(attributes);
    }
  });

  it('every rule on update: the same 422, and the policy stays as it was', async () => {
    await Promise.all(
      BROKEN.map(async ([attributes, code, attribute]) => {
        const policy = (await createPolicy({})).body.data;
        const error = expectCode(await patchPolicy(policy.id, attributes), 422, code);
        expect(error.source, JSON.stringify(attributes)).toEqual({ pointer: `/data/attributes/${attribute}` });
        expect((await l.api('GET', `/policies/${policy.id}`)).body.data).toEqual(policy);
      }),
    );
  });

  it('an update is judged with what the policy stores: a change that breaks a rule with another attribute is 422', async () => {
    /** [stored, change, code]: the change alone keeps every rule, with what is stored it breaks one. */
    const cases: [Attributes, Attributes, string][] = [
      [{ maxMachines: 4, overageStrategy: 'ALLOW_1_25X_OVERAGE' }, { maxMachines: 6 }, 'OVERAGE_STRATEGY_NOT_ALLOWED'],
      [{ maxMachines: 4, overageStrategy: 'ALLOW_1_25X_OVERAGE' }, { maxMachines: 1 }, 'OVERAGE_STRATEGY_NOT_ALLOWED'],
      [{ maxMachines: 6 }, { overageStrategy: 'ALLOW_1_25X_OVERAGE' }, 'OVERAGE_STRATEGY_NOT_ALLOWED'],
      [{ maxCores: 3 }, { overageStrategy: 'ALLOW_1_5X_OVERAGE' }, 'OVERAGE_STRATEGY_NOT_ALLOWED'],
      [{ maxMachines: 1 }, { overageStrategy: 'ALLOW_1_5X_OVERAGE' }, 'OVERAGE_STRATEGY_NOT_ALLOWED'],
      [{ maxMachines: 4 }, { floating: false }, 'MAX_MACHINES_INVALID'],
      [{ floating: false }, { maxMachines: 2 }, 'MAX_MACHINES_INVALID'],
      [{ floating: false }, { maxMachines: null }, 'MAX_MACHINES_INVALID'],
      [
        { heartbeatCullStrategy: 'KEEP_DEAD', heartbeatResurrectionStrategy: 'ALWAYS_REVIVE' },
        { heartbeatCullStrategy: 'DEACTIVATE_DEAD' },
        'HEARTBEAT_CULL_STRATEGY_NOT_ALLOWED',
      ],
      [{ requireHeartbeat: true, heartbeatBasis: 'FROM_CREATION' }, { requireHeartbeat: false }, 'HEARTBEAT_BASIS_NOT_ALLOWED'],
    ];
    await Promise.all(
      cases.map(async ([stored, change, code]) => {
        const policy = (await createPolicy(stored)).body.data;
        expect(policy.attributes, JSON.stringify(stored)).toMatchObject(stored);
        expectCode(await patchPolicy(policy.id, change), 422, code);
        expect((await l.api('GET', `/policies/${policy.id}`)).body.data).toEqual(policy);
      }),
    );
    // The change that keeps the rules with what is stored lands.
    const policy = (await createPolicy({ maxMachines: 4, overageStrategy: 'ALLOW_1_25X_OVERAGE' })).body.data;
    expect((await patchPolicy(policy.id, { maxMachines: 8 })).body.data.attributes).toMatchObject({ maxMachines: 8 });
  });

  it('two concurrent updates that each keep the rules but together would break one: one lands, the other is 409 (or, once it reads the first, 422)', async () => {
    let conflicts = 0;
    // Each round is a fresh pair; the requests overlap unless one finishes before the other reads.
    for (let round = 0; round < 10 && conflicts === 0; round++) {
      const policy = (await createPolicy({ maxMachines: 4 })).body.data;
      const replies = await Promise.all([
        patchPolicy(policy.id, { overageStrategy: 'ALLOW_1_25X_OVERAGE' }),
        patchPolicy(policy.id, { maxMachines: 6 }),
      ]);
      const statuses = replies.map((reply) => reply.status);
      expect(
        statuses.filter((status) => status === 200),
        JSON.stringify(replies.map((r) => r.body)),
      ).toHaveLength(1);
      const refused = replies.find((reply) => reply.status !== 200) as Reply;
      if (refused.status === 409) {
        conflicts++;
        expectCode(refused, 409, 'CONFLICT');
      } else {
        expectCode(refused, 422, 'OVERAGE_STRATEGY_NOT_ALLOWED');
      }
      const stored = (await l.api('GET', `/policies/${policy.id}`)).body.data.attributes;
      // Whichever landed, the policy keeps the rule: never 1.25× with 6 machines.
      expect([stored.maxMachines, stored.overageStrategy]).not.toEqual([6, 'ALLOW_1_25X_OVERAGE']);
    }
    expect(conflicts, 'a pair that overlapped').toBe(1);
  });
});

describe.concurrent('activation limits', () => {
  it('20 concurrent activations on a license of 5 machines: exactly 5 land, the others 422 MACHINE_LIMIT_EXCEEDED at /data', async () => {
    const { license } = await licenseUnder({ maxMachines: 5 });
    const replies = await Promise.all(Array.from({ length: 20 }, () => activate(license.id)));
    expect(replies.filter((reply) => reply.status === 201)).toHaveLength(5);
    for (const reply of replies.filter((r) => r.status !== 201)) expectMachineLimit(reply);
    expect((await l.api('GET', `/licenses/${license.id}/machines`)).body.data).toHaveLength(5);
    expect(await machineCount(license.id)).toBe(5);
  });

  it('overage: 1.25× of 4 fits 5, 1.5× of 4 fits 6, 2× of 2 fits 4, always-allow has no bound; the next one is refused', async () => {
    const cases: [Attributes, number | null][] = [
      [{ maxMachines: 4, overageStrategy: 'ALLOW_1_25X_OVERAGE' }, 5],
      [{ maxMachines: 4, overageStrategy: 'ALLOW_1_5X_OVERAGE' }, 6],
      [{ maxMachines: 2, overageStrategy: 'ALLOW_2X_OVERAGE' }, 4],
      [{ maxMachines: 2, overageStrategy: 'NO_OVERAGE' }, 2],
      [{ maxMachines: 1, overageStrategy: 'ALWAYS_ALLOW_OVERAGE' }, null],
    ];
    await Promise.all(
      cases.map(async ([policy, fits]) => {
        const { license } = await licenseUnder(policy);
        await machines(license.id, fits ?? 8);
        if (fits !== null) expectMachineLimit(await activate(license.id));
      }),
    );
  });

  it('a node-locked policy takes one machine (two under 2× overage); a deactivation gives the seat back', async () => {
    for (const [policy, fits] of [
      [{ maxMachines: 1 }, 1],
      [{ floating: false }, 1],
      [{ floating: false, overageStrategy: 'ALLOW_2X_OVERAGE' }, 2],
    ] as const) {
      const { license } = await licenseUnder(policy);
      const [first] = await machines(license.id, fits);
      expectMachineLimit(await activate(license.id));
      expect((await l.api('DELETE', `/machines/${first?.id}`)).status).toBe(204);
      expect(await machineCount(license.id)).toBe(fits - 1);
      expect((await activate(license.id)).status).toBe(201);
      expectMachineLimit(await activate(license.id));
    }
  });

  it('cores: counted at activation within maxCores, the first machine included; a machine without cores counts none', async () => {
    const { license } = await licenseUnder({ maxCores: 8 });
    // As Keygen judges it, the first machine's cores too: it may not bring more than maxCores.
    expectCoreLimit(await activate(license.id, { cores: 9 }));
    expect(await machineCount(license.id)).toBe(0);
    const [a] = await machines(license.id, 2, { cores: 4 });
    expect(a?.attributes.cores).toBe(4);
    expectCoreLimit(await activate(license.id, { cores: 1 }));
    await machines(license.id, 1);
    expect([await machineCount(license.id), await coreCount(license.id)]).toEqual([3, 8]);
    expectCode(await activate(license.id, { cores: 0 }), 422, 'CORES_INVALID');
  });

  it('cores within their overage: 1.25× of 4 fits 5, 2× of 4 fits 8, always-allow any', async () => {
    for (const [overageStrategy, fits] of [
      ['ALLOW_1_25X_OVERAGE', 5],
      ['ALLOW_2X_OVERAGE', 8],
    ] as const) {
      const { license } = await licenseUnder({ maxCores: 4, overageStrategy });
      expectCoreLimit(await activate(license.id, { cores: fits + 1 }));
      await machines(license.id, 1, { cores: fits });
      expectCoreLimit(await activate(license.id, { cores: 1 }));
    }
    const { license } = await licenseUnder({ maxCores: 4, overageStrategy: 'ALWAYS_ALLOW_OVERAGE' });
    await machines(license.id, 2, { cores: 64 });
    expect(await coreCount(license.id)).toBe(128);
  });

  it("a machine's cores change the license's count within maxCores; clearing them gives them back", async () => {
    const { license } = await licenseUnder({ maxCores: 8 });
    const [a, b] = await machines(license.id, 2, { cores: 2 });
    expectCoreLimit(await patchMachine(a?.id as string, { cores: 7 }));
    expect((await l.api('GET', `/machines/${a?.id}`)).body.data.attributes.cores).toBe(2);
    const grown = await patchMachine(a?.id as string, { cores: 6 });
    expect(grown.status, JSON.stringify(grown.body)).toBe(200);
    expect(grown.body.data.attributes.cores).toBe(6);
    expect(await coreCount(license.id)).toBe(8);
    expectCoreLimit(await patchMachine(b?.id as string, { cores: 3 }));
    expect((await patchMachine(a?.id as string, { cores: null })).body.data.attributes.cores).toBeNull();
    expect(await coreCount(license.id)).toBe(2);
    expect((await patchMachine(b?.id as string, { cores: 8 })).status).toBe(200);
    expectCode(await patchMachine(b?.id as string, { cores: 0 }), 422, 'CORES_INVALID');
    // An update of anything else leaves the count alone.
    expect((await patchMachine(b?.id as string, { name: 'renamed' })).status).toBe(200);
    expect(await coreCount(license.id)).toBe(8);
  });

  it('a deactivation gives its seat and its cores back', async () => {
    const { license } = await licenseUnder({ maxMachines: 2, maxCores: 4 });
    const [a] = await machines(license.id, 2, { cores: 2 });
    expectMachineLimit(await activate(license.id));
    expect((await l.api('DELETE', `/machines/${a?.id}`)).status).toBe(204);
    expect([await machineCount(license.id), await coreCount(license.id)]).toEqual([1, 2]);
    expectCoreLimit(await activate(license.id, { cores: 3 }));
    await machines(license.id, 1, { cores: 2 });
  });

  it('concurrent activations and core updates never take the cores beyond maxCores', async () => {
    const { license } = await licenseUnder({ maxCores: 8 });
    const activations = await Promise.all(Array.from({ length: 10 }, () => activate(license.id, { cores: 3 })));
    const landed = activations.filter((reply) => reply.status === 201);
    expect(landed).toHaveLength(2);
    for (const reply of activations.filter((r) => r.status !== 201)) expectCoreLimit(reply);
    // 6 of 8 taken: of two machines growing by 2 each at once, one fits.
    const updates = await Promise.all(landed.map((reply) => patchMachine(reply.body.data.id, { cores: 5 })));
    expect(updates.map((reply) => reply.status).sort()).toEqual([200, 422]);
    expect(await coreCount(license.id)).toBe(8);
  });

  it("concurrent changes of one machine's cores, and with its deactivation, leave the count equal to the cores held", async () => {
    const { license } = await licenseUnder({ maxCores: 1000 });
    const made = await machines(license.id, 16, { cores: 2 });
    const kept = made.slice(0, 4);
    const removed = made.slice(4);
    const replies = await Promise.all([
      ...kept.flatMap((machine) => [patchMachine(machine.id, { cores: 3 }), patchMachine(machine.id, { cores: 5 })]),
      ...removed.flatMap((machine) => [patchMachine(machine.id, { cores: 7 }), l.api('DELETE', `/machines/${machine.id}`)]),
    ]);
    // A change that lost to another one is 409 (retry); a change after the deactivation finds no machine.
    for (const reply of replies) expect([200, 204, 404, 409], JSON.stringify(reply.body)).toContain(reply.status);
    const held = await Promise.all(kept.map(async (machine) => (await l.api('GET', `/machines/${machine.id}`)).body.data.attributes.cores));
    expect(await coreCount(license.id)).toBe(held.reduce((sum: number, cores: number) => sum + cores, 0));
    expect(await machineCount(license.id)).toBe(4);
  });
});

describe.concurrent('validation of machines and heartbeats', () => {
  it('NO_MACHINE (not floating) or NO_MACHINES (floating) with a machine or fingerprint scope and no machine', async () => {
    const cases: [Attributes, string][] = [
      [{ maxMachines: 1 }, 'NO_MACHINE'],
      [{ floating: false }, 'NO_MACHINE'],
      [{}, 'NO_MACHINES'],
      [{ maxMachines: 5 }, 'NO_MACHINES'],
      // floating, though for one machine: floating decides, not maxMachines.
      [{ floating: true, maxMachines: 1 }, 'NO_MACHINES'],
    ];
    await Promise.all(
      cases.map(async ([policy, code]) => {
        const { license } = await licenseUnder(policy);
        for (const scope of [{ machine: randomUUID() }, { fingerprint: 'nothing' }, { fingerprints: ['a', 'b'] }]) {
          expect(await verdict(license, scope), JSON.stringify([policy, scope])).toEqual([code, false]);
        }
        expect(await verdict(license)).toEqual(['VALID', true]);
      }),
    );
  });

  it('HEARTBEAT_DEAD: the machine named by id or fingerprint has a heartbeat past its duration', async () => {
    const { license } = await licenseUnder({ heartbeatCullStrategy: 'KEEP_DEAD', heartbeatDuration: 120 });
    const machine = await l.machine(license.id);
    const fingerprint = machine.attributes.fingerprint as string;
    await lastHeartbeat(machine.id, 60);
    expect(await verdict(license, { machine: machine.id })).toEqual(['VALID', true]);
    expect(await verdict(license, { fingerprint })).toEqual(['VALID', true]);
    await lastHeartbeat(machine.id, 121);
    expect((await l.api('GET', `/machines/${machine.id}`)).body.data.attributes.heartbeatStatus).toBe('DEAD');
    expect(await verdict(license, { machine: machine.id })).toEqual(['HEARTBEAT_DEAD', false]);
    expect(await verdict(license, { fingerprint })).toEqual(['HEARTBEAT_DEAD', false]);
    expect(await verdict(license, { fingerprints: [fingerprint] })).toEqual(['HEARTBEAT_DEAD', false]);
    // Without a machine scope the machine's heartbeat is not looked at.
    expect(await verdict(license)).toEqual(['VALID', true]);
  });

  it('HEARTBEAT_NOT_STARTED: a policy requiring heartbeats from the first ping, for a machine that never pinged', async () => {
    const { license } = await licenseUnder({
      requireHeartbeat: true,
      heartbeatBasis: 'FROM_FIRST_PING',
      heartbeatCullStrategy: 'KEEP_DEAD',
    });
    const machine = await l.machine(license.id);
    const fingerprint = machine.attributes.fingerprint as string;
    expect(machine.attributes).toMatchObject({ requireHeartbeat: true, heartbeatStatus: 'NOT_STARTED' });
    expect(await verdict(license, { machine: machine.id })).toEqual(['HEARTBEAT_NOT_STARTED', false]);
    expect(await verdict(license, { fingerprint })).toEqual(['HEARTBEAT_NOT_STARTED', false]);
    expect(await verdict(license)).toEqual(['VALID', true]);
    // Once it has pinged, it is alive.
    await lastHeartbeat(machine.id, 0);
    expect(await verdict(license, { machine: machine.id })).toEqual(['VALID', true]);
    expect(await verdict(license, { fingerprint })).toEqual(['VALID', true]);

    // From creation, a new machine's heartbeat has started.
    const fromCreation = await licenseUnder({ requireHeartbeat: true, heartbeatCullStrategy: 'KEEP_DEAD' });
    const started = await l.machine(fromCreation.license.id);
    expect(started.attributes.heartbeatStatus).toBe('ALIVE');
    expect(await verdict(fromCreation.license, { machine: started.id })).toEqual(['VALID', true]);
    // Not required, a machine that never pinged is not judged by its heartbeat.
    const unrequired = await licenseUnder();
    const idle = await l.machine(unrequired.license.id);
    expect(await verdict(unrequired.license, { fingerprint: idle.attributes.fingerprint })).toEqual(['VALID', true]);
  });

  it('fingerprints are judged over the alive machines only', async () => {
    const { license } = await licenseUnder({ heartbeatCullStrategy: 'KEEP_DEAD' });
    const [dead, dying, alive] = await machines(license.id, 3);
    await Promise.all([lastHeartbeat(dead?.id as string, 3600), lastHeartbeat(dying?.id as string, 3600)]);
    const fp = (machine: Made | undefined) => machine?.attributes.fingerprint as string;
    expect(await verdict(license, { fingerprints: [fp(dead), 'unknown'] })).toEqual(['FINGERPRINT_SCOPE_MISMATCH', false]);
    expect(await verdict(license, { fingerprints: [fp(dead), fp(dying)] })).toEqual(['HEARTBEAT_DEAD', false]);
    expect(await verdict(license, { fingerprints: [fp(dead), fp(dying), fp(dead)] })).toEqual(['HEARTBEAT_DEAD', false]);
    expect(await verdict(license, { fingerprints: [fp(dead), fp(alive)] })).toEqual(['VALID', true]);
    expect(await verdict(license, { fingerprints: ['unknown', fp(alive)] })).toEqual(['VALID', true]);

    // Required from the first ping: of the alive machines named, one that has not started fails.
    const required = await licenseUnder({ requireHeartbeat: true, heartbeatBasis: 'FROM_FIRST_PING', heartbeatCullStrategy: 'KEEP_DEAD' });
    const [pinged, waiting] = await machines(required.license.id, 2);
    await lastHeartbeat(pinged?.id as string, 0);
    expect(await verdict(required.license, { fingerprints: [fp(pinged)] })).toEqual(['VALID', true]);
    expect(await verdict(required.license, { fingerprints: [fp(pinged), fp(waiting)] })).toEqual(['HEARTBEAT_NOT_STARTED', false]);
  });
});

describe.concurrent('validation under a strict policy', () => {
  it('NO_MACHINE (node-locked) or NO_MACHINES (floating) without any scope; not strict, VALID', async () => {
    for (const [policy, code] of [
      [{ strict: true, maxMachines: 1 }, 'NO_MACHINE'],
      [{ strict: true }, 'NO_MACHINES'],
    ] as const) {
      const { license } = await licenseUnder(policy);
      expect(await verdict(license)).toEqual([code, false]);
      await l.machine(license.id);
      expect(await verdict(license)).toEqual(['VALID', true]);
    }
    expect(await verdict((await licenseUnder({ strict: false })).license)).toEqual(['VALID', true]);
  });

  it('TOO_MANY_MACHINES: valid within the overage allowance, not beyond; a node-locked limit is 1', async () => {
    const { policy, license } = await licenseUnder({ strict: true, maxMachines: 4, overageStrategy: 'ALLOW_1_25X_OVERAGE' });
    await machines(license.id, 4);
    expect(await verdict(license)).toEqual(['VALID', true]);
    await machines(license.id, 1);
    expect(await verdict(license)).toEqual(['TOO_MANY_MACHINES', true]);
    expect((await patchPolicy(policy.id, { overageStrategy: 'NO_OVERAGE' })).status).toBe(200);
    expect(await verdict(license)).toEqual(['TOO_MANY_MACHINES', false]);
    expect((await patchPolicy(policy.id, { overageStrategy: 'ALWAYS_ALLOW_OVERAGE', maxMachines: 2 })).status).toBe(200);
    expect(await verdict(license)).toEqual(['TOO_MANY_MACHINES', true]);
    // Not strict: the counts are not judged.
    expect((await patchPolicy(policy.id, { strict: false, overageStrategy: 'NO_OVERAGE' })).status).toBe(200);
    expect(await verdict(license)).toEqual(['VALID', true]);

    const nodeLocked = await licenseUnder({ strict: true, floating: false, overageStrategy: 'ALLOW_2X_OVERAGE' });
    await machines(nodeLocked.license.id, 2);
    expect(await verdict(nodeLocked.license)).toEqual(['TOO_MANY_MACHINES', true]);
    expect((await patchPolicy(nodeLocked.policy.id, { overageStrategy: 'NO_OVERAGE' })).status).toBe(200);
    expect(await verdict(nodeLocked.license)).toEqual(['TOO_MANY_MACHINES', false]);
  });

  it('TOO_MANY_CORES: valid within the overage allowance, not beyond', async () => {
    const { policy, license } = await licenseUnder({ strict: true, maxCores: 4, overageStrategy: 'ALLOW_2X_OVERAGE' });
    await machines(license.id, 1, { cores: 4 });
    expect(await verdict(license)).toEqual(['VALID', true]);
    await machines(license.id, 1, { cores: 2 });
    expect(await verdict(license)).toEqual(['TOO_MANY_CORES', true]);
    expect((await patchPolicy(policy.id, { maxCores: 2 })).status).toBe(200);
    expect(await verdict(license)).toEqual(['TOO_MANY_CORES', false]);
  });

  it("TOO_MANY_PROCESSES: the license's processes under PER_LICENSE; the matched machine's under PER_MACHINE, none without one", async () => {
    const perLicense = await licenseUnder({
      strict: true,
      maxProcesses: 2,
      processLeasingStrategy: 'PER_LICENSE',
      overageStrategy: 'ALLOW_1_5X_OVERAGE',
    });
    await l.machine(perLicense.license.id);
    await setCount(licenseProcessCountKey(account.id, perLicense.license.id), 2);
    expect(await verdict(perLicense.license)).toEqual(['VALID', true]);
    await setCount(licenseProcessCountKey(account.id, perLicense.license.id), 3);
    expect(await verdict(perLicense.license)).toEqual(['TOO_MANY_PROCESSES', true]);
    await setCount(licenseProcessCountKey(account.id, perLicense.license.id), 4);
    expect(await verdict(perLicense.license)).toEqual(['TOO_MANY_PROCESSES', false]);

    const perMachine = await licenseUnder({ strict: true, maxProcesses: 2 });
    const [busy, quiet] = await machines(perMachine.license.id, 2);
    await setCount(machineProcessCountKey(account.id, busy?.id as string), 3);
    expect(await verdict(perMachine.license, { machine: busy?.id })).toEqual(['TOO_MANY_PROCESSES', false]);
    expect(await verdict(perMachine.license, { fingerprint: busy?.attributes.fingerprint })).toEqual(['TOO_MANY_PROCESSES', false]);
    expect(await verdict(perMachine.license, { machine: quiet?.id })).toEqual(['VALID', true]);
    // No machine matched: no machine's processes to count.
    expect(await verdict(perMachine.license)).toEqual(['VALID', true]);
    // A fingerprint's machine wins over the machine scope's, as in Keygen.
    expect(await verdict(perMachine.license, { machine: busy?.id, fingerprint: quiet?.attributes.fingerprint })).toEqual(['VALID', true]);
  });

  it('the counts come after the scopes and before the expiry; the first count over its limit answers', async () => {
    const { policy, license } = await licenseUnder({ strict: true, maxMachines: 2, maxCores: 2, overageStrategy: 'ALLOW_2X_OVERAGE' });
    await machines(license.id, 3, { cores: 1 });
    expect(await verdict(license)).toEqual(['TOO_MANY_MACHINES', true]);
    expect(await verdict(license, { fingerprint: 'unknown' })).toEqual(['FINGERPRINT_SCOPE_MISMATCH', false]);
    expect(await verdict(license, { product: randomUUID() })).toEqual(['PRODUCT_SCOPE_MISMATCH', false]);
    expect(
      (await l.api('PATCH', `/licenses/${license.id}`, { body: doc('licenses', { expiry: new Date(Date.now() - 60_000).toISOString() }) }))
        .status,
    ).toBe(200);
    // As in Keygen, an answer on the counts, even valid, comes before the expiry.
    expect(await verdict(license)).toEqual(['TOO_MANY_MACHINES', true]);
    expect((await patchPolicy(policy.id, { maxMachines: 4 })).status).toBe(200);
    expect(await verdict(license)).toEqual(['TOO_MANY_CORES', true]);
    expect((await patchPolicy(policy.id, { maxCores: 4 })).status).toBe(200);
    expect(await verdict(license)).toEqual(['EXPIRED', false]);
  });
});
