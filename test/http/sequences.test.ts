/**
 * One request after another never meets a conflict: every item that keeps a count or a set beside
 * other items (docs/data-model.md) takes a new member once one has left, however the member left
 * (its own delete, a cascade in the request, the cascades worker, the heartbeat sweeper, an
 * environment's purge). Each limit is as tight as it goes (1, or the smallest that lets the case
 * be made), so a count left behind, stuck at 0 where it is required absent, or drifted from its
 * members refuses the add. Work done later by the stack (a cascade, a purge) is waited for with
 * its own signal that it is done (localStackIdle), the sweeper's work by calling its handlers at
 * a time ahead, as test/http/heartbeats.test.ts and processes.test.ts do. The entitlement sets
 * are covered by test/http/entitlements.test.ts.
 *
 * Last, the accounts' counts are checked against their members (test/support/consistency.ts).
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { machineDue } from '#shared/resources/machines/sweep.ts';
import { sweepProcess } from '#shared/resources/processes/sweep.ts';
import { dueAttributes } from '#shared/store/due.ts';
import { cascadeMarkerKey, recordKey } from '#shared/store/keys.ts';
import { getItem } from '#shared/store/records.ts';
import { basic, call, newAccount, newEnvironment, newUser, type Reply, type TestAccount } from '../support/client.ts';
import { checkConsistency } from '../support/consistency.ts';
import { localStackIdle } from '../support/idle.ts';
import { doc, expectCode, licensing, ref } from '../support/licensing.ts';
import { storeMachine } from '../support/machines.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;

beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
});

type Options = { token?: string; environment?: string };
type Attributes = Record<string, unknown>;

/** The reply's status is `status` (the body shown when it is not). */
function expectStatus(reply: Reply, status: number) {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  return reply.body?.data as { id: string; attributes: any };
}

const nested = (fingerprints: readonly string[]) => ({
  data: fingerprints.map((fingerprint) => ({ type: 'components', attributes: { fingerprint, name: 'Part' } })),
});

/** POST /machines on `licenseId`, with components created with it when `components` names any. */
const activate = (licenseId: string, attributes: Attributes = {}, options: Options & { components?: string[] } = {}) =>
  l.api('POST', '/machines', {
    ...options,
    body: doc(
      'machines',
      { fingerprint: `m-${randomUUID()}`, ...attributes },
      { license: ref('licenses', licenseId), ...(options.components ? { components: nested(options.components) } : {}) },
    ),
  });
const activated = async (licenseId: string, attributes: Attributes = {}, options: Options & { components?: string[] } = {}) =>
  expectStatus(await activate(licenseId, attributes, options), 201);

const addComponent = (machineId: string, fingerprint: string, options: Options = {}) =>
  l.api('POST', '/components', {
    ...options,
    body: doc('components', { fingerprint, name: 'Part' }, { machine: ref('machines', machineId) }),
  });
const startProcess = (machineId: string, pid = `pid-${randomUUID()}`, options: Options = {}) =>
  l.api('POST', '/processes', { ...options, body: doc('processes', { pid }, { machine: ref('machines', machineId) }) });

const removed = async (path: string, options: Options = {}) => expectStatus(await l.api('DELETE', path, options), 204);

/**
 * DELETE `path` (`/<type>/<id>`): 204, and done in the request. A removal whose counts say that
 * something still hangs on the record (a count it requires to hold only what it deletes, drifted
 * or stuck where the condition refuses it) is not refused: it goes at once and leaves the rest to
 * the cascades worker, writing the cascade's marker, which this looks for.
 */
async function inRequest(path: string) {
  await removed(path);
  const id = path.split('/').pop() as string;
  expect(await getItem(cascadeMarkerKey(account.id, id)), `${path} left work to the cascades worker`).toBeUndefined();
}

/** A product, a policy with `policy`'s attributes, and `licenses` licenses of it. */
async function policyWith(policy: Attributes, licenses = 1) {
  const product = await l.product();
  const made = await l.policy(product.id, policy);
  const many = [];
  for (let i = 0; i < licenses; i++) many.push(await l.license(made.id));
  return { product, policy: made, licenses: many };
}

const validateKey = (key: string, scope: Attributes) =>
  call('POST', `${account.path}/licenses/actions/validate-key`, { body: { meta: { key, scope } } });
const verdict = async (key: string, scope: Attributes) => {
  const reply = await validateKey(key, scope);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.meta.code as string;
};

describe.concurrent('a member removed, then another added, one request after the other', () => {
  it("a license's machine and core counts (maxMachines 1, maxCores 2): activate and deactivate, twice", async () => {
    const {
      licenses: [license],
    } = await policyWith({ maxMachines: 1, maxCores: 2, strict: true });
    const key = license!.attributes.key as string;
    for (let round = 0; round < 2; round++) {
      const machine = await activated(license!.id, { cores: 2 });
      expectCode(await activate(license!.id, { cores: 1 }), 422, 'MACHINE_LIMIT_EXCEEDED');
      // Down to 1 core and back up to 2: the core count follows.
      expectStatus(await l.api('PATCH', `/machines/${machine.id}`, { body: doc('machines', { cores: 1 }) }), 200);
      expectStatus(await l.api('PATCH', `/machines/${machine.id}`, { body: doc('machines', { cores: 2 }) }), 200);
      expect(await verdict(key, { fingerprint: machine.attributes.fingerprint })).toBe('VALID');
      // Named by its id, then by its fingerprint.
      await removed(`/machines/${round === 1 ? encodeURIComponent(machine.attributes.fingerprint) : machine.id}`);
      expect(await verdict(key, {})).toBe('NO_MACHINE');
    }
  });

  it("a global license's seat and its share in a SHARED environment (maxMachines 1): deactivate in one, activate in the other", async () => {
    const shared = await newEnvironment(account, 'SHARED');
    const {
      licenses: [license],
    } = await policyWith({ maxMachines: 1 });
    for (const [here, there] of [
      [shared.code, undefined],
      [undefined, shared.code],
      [shared.code, shared.code],
    ] as const) {
      const machine = await activated(license!.id, {}, { environment: here });
      expectCode(await activate(license!.id, {}, { environment: there }), 422, 'MACHINE_LIMIT_EXCEEDED');
      await removed(`/machines/${machine.id}`, { environment: here });
    }
    await activated(license!.id);
  });

  it("a machine's process count and pid marker (PER_MACHINE, maxProcesses 1): delete, start the same pid; culled by the sweeper, start it again", async () => {
    const {
      licenses: [license],
    } = await policyWith({ maxProcesses: 1, processLeasingStrategy: 'PER_MACHINE' });
    const machine = await activated(license!.id);
    const pid = 'pid-1';
    const process = expectStatus(await startProcess(machine.id, pid), 201);
    expectCode(await startProcess(machine.id), 422, 'MACHINE_PROCESS_LIMIT_EXCEEDED');
    await removed(`/processes/${process.id}`);
    // Culled by the sweeper once dead (its handler, called just after the process's deadline).
    const doomed = expectStatus(await startProcess(machine.id, pid), 201);
    const item = await getItem(recordKey(account.id, 'processes', doomed.id));
    const deadline = Date.parse(doomed.attributes.nextHeartbeat) + 1;
    await sweepProcess({ PK: item!.PK, SK: item!.SK, due: item!.DUESK as string }, deadline);
    expectCode(await l.api('GET', `/processes/${doomed.id}`), 404);
    const next = expectStatus(await startProcess(machine.id, pid), 201);
    expectCode(await startProcess(machine.id), 422, 'MACHINE_PROCESS_LIMIT_EXCEEDED');
    // The machine goes with its process (in its request); the license's next machine starts one.
    await removed(`/machines/${machine.id}`);
    expectCode(await l.api('GET', `/processes/${next.id}`), 404);
    const other = await activated(license!.id);
    expectStatus(await startProcess(other.id, pid), 201);
  });

  it("a license's process count (PER_LICENSE, maxProcesses 1) over two machines: delete a process, or its machine, and start one on the other", async () => {
    const {
      licenses: [license],
    } = await policyWith({ maxProcesses: 1, processLeasingStrategy: 'PER_LICENSE', strict: true, maxMachines: 2 });
    const [first, second] = [await activated(license!.id), await activated(license!.id)];
    const process = expectStatus(await startProcess(first!.id), 201);
    expectCode(await startProcess(second!.id), 422, 'MACHINE_PROCESS_LIMIT_EXCEEDED');
    await removed(`/processes/${process.id}`);
    expectStatus(await startProcess(second!.id), 201);
    expectCode(await startProcess(first!.id), 422, 'MACHINE_PROCESS_LIMIT_EXCEEDED');
    await removed(`/machines/${second!.id}`);
    expectStatus(await startProcess(first!.id), 201);
    expect(await verdict(license!.attributes.key, { fingerprint: first!.attributes.fingerprint })).toBe('VALID');
  });

  for (const strategy of ['UNIQUE_PER_LICENSE', 'UNIQUE_PER_POLICY', 'UNIQUE_PER_PRODUCT', 'UNIQUE_PER_ACCOUNT'] as const) {
    it(`a machine fingerprint's marker and counts (${strategy}, maxMachines 1): deactivate, activate it on another license; its license deleted, again`, async () => {
      const { policy, licenses } = await policyWith({ machineUniquenessStrategy: strategy, maxMachines: 1 }, 3);
      const [a, b, c] = strategy === 'UNIQUE_PER_LICENSE' ? [licenses[0]!, licenses[0]!, licenses[0]!] : (licenses as [any, any, any]);
      const fingerprint = `fp-${randomUUID()}`;
      const first = await activated(a.id, { fingerprint });
      if (strategy !== 'UNIQUE_PER_LICENSE') expectCode(await activate(b.id, { fingerprint }), 422, 'FINGERPRINT_TAKEN');
      await removed(`/machines/${first.id}`);
      await activated(b.id, { fingerprint });
      // Its license goes with it (a cascade in the request): the fingerprint is free again.
      await removed(`/licenses/${b.id}`);
      const last = strategy === 'UNIQUE_PER_LICENSE' ? await l.license(policy.id) : c;
      await activated(last.id, { fingerprint });
    });
  }

  for (const strategy of ['UNIQUE_PER_MACHINE', 'UNIQUE_PER_LICENSE', 'UNIQUE_PER_POLICY', 'UNIQUE_PER_PRODUCT', 'UNIQUE_PER_ACCOUNT']) {
    it(`a component fingerprint's marker, counts and device counts (${strategy}): delete, add the same; its machine deleted, activate one with it`, async () => {
      const {
        licenses: [license],
      } = await policyWith({ componentUniquenessStrategy: strategy, componentMatchingStrategy: 'MATCH_ALL', maxMachines: 1 });
      const key = license!.attributes.key as string;
      const part = `c-${randomUUID()}`;
      const machine = await activated(license!.id);
      const fingerprint = machine.attributes.fingerprint as string;
      const component = expectStatus(await addComponent(machine.id, part), 201);
      expectCode(await addComponent(machine.id, part), 422, 'FINGERPRINT_TAKEN');
      await removed(`/components/${component.id}`);
      const last = expectStatus(await addComponent(machine.id, part), 201);
      expect(await verdict(key, { fingerprint, components: [part] })).toBe('VALID');
      // The machine goes with its component; the same device comes back with it.
      await removed(`/machines/${machine.id}`);
      expectCode(await l.api('GET', `/components/${last.id}`), 404);
      await activated(license!.id, { fingerprint }, { components: [part] });
      expect(await verdict(key, { fingerprint, components: [part] })).toBe('VALID');
    });
  }

  it('a machine culled by the heartbeat sweeper gives back its seat, its fingerprint, its components and its process', async () => {
    const {
      licenses: [license],
    } = await policyWith({
      requireHeartbeat: true,
      heartbeatDuration: 60,
      maxMachines: 1,
      maxProcesses: 1,
      processLeasingStrategy: 'PER_LICENSE',
      machineUniquenessStrategy: 'UNIQUE_PER_POLICY',
      componentUniquenessStrategy: 'UNIQUE_PER_LICENSE',
    });
    const fingerprint = `fp-${randomUUID()}`;
    const part = `c-${randomUUID()}`;
    const machine = await activated(license!.id, { fingerprint }, { components: [part] });
    expectStatus(await startProcess(machine.id), 201);
    // Dead a day ahead (out of the stack's sweeper's reach), then culled by the sweeper's handler.
    const at = Math.ceil((Date.now() + 86_400_000) / 60_000) * 60_000;
    await storeMachine(account.id, machine.id, { lastHeartbeat: new Date(at - 120_000).toISOString(), ...dueAttributes(new Date(at)) });
    const item = await getItem(recordKey(account.id, 'machines', machine.id));
    await machineDue({ PK: item!.PK, SK: item!.SK, due: item!.DUESK as string }, at + 1000);
    expectCode(await l.api('GET', `/machines/${machine.id}`), 404);
    const again = await activated(license!.id, { fingerprint }, { components: [part] });
    expectStatus(await startProcess(again.id), 201);
  });

  it('a license removed at once, its machines and components left to the cascades worker: once done, their fingerprints are free in the policy', async () => {
    const { licenses } = await policyWith(
      { maxMachines: 5, machineUniquenessStrategy: 'UNIQUE_PER_POLICY', componentUniquenessStrategy: 'UNIQUE_PER_POLICY' },
      2,
    );
    const [doomed, next] = licenses as [any, any];
    // 5 machines of 20 components: more than a removal takes in its request (IN_REQUEST, 100).
    const devices = Array.from({ length: 5 }, () => ({
      fingerprint: `fp-${randomUUID()}`,
      parts: Array.from({ length: 20 }, () => `c-${randomUUID()}`),
    }));
    await Promise.all(devices.map((device) => activated(doomed.id, { fingerprint: device.fingerprint }, { components: device.parts })));
    expectCode(await activate(next.id, { fingerprint: devices[0]!.fingerprint }), 422, 'FINGERPRINT_TAKEN');
    await removed(`/licenses/${doomed.id}`);
    expect(await getItem(cascadeMarkerKey(account.id, doomed.id)), 'a cascade under way').toBeDefined();
    await localStackIdle();
    await Promise.all(devices.map((device) => activated(next.id, { fingerprint: device.fingerprint }, { components: device.parts })));
  });

  it("a SHARED environment purged with a global license's machine and process gives back the seat, the fingerprint and the process", async () => {
    const shared = await newEnvironment(account, 'SHARED');
    const {
      licenses: [license],
    } = await policyWith({
      maxMachines: 1,
      maxProcesses: 1,
      processLeasingStrategy: 'PER_LICENSE',
      machineUniquenessStrategy: 'UNIQUE_PER_ACCOUNT',
    });
    const fingerprint = `fp-${randomUUID()}`;
    const machine = await activated(license!.id, { fingerprint }, { environment: shared.code });
    expectStatus(await startProcess(machine.id, undefined, { environment: shared.code }), 201);
    expectCode(await activate(license!.id, { fingerprint }), 422);
    await removed(`/environments/${shared.id}`);
    await localStackIdle();
    const again = await activated(license!.id, { fingerprint });
    expectStatus(await startProcess(again.id), 201);
  });

  it('webhook endpoints (20 an environment): delete one of 20, create another', async () => {
    const own = await newAccount();
    const endpoint = (i: number) =>
      call('POST', `${own.path}/webhook-endpoints`, {
        token: own.adminToken,
        // Subscribed to an event nothing here emits: no delivery to wait for.
        body: doc('webhook-endpoints', { url: `https://127.0.0.1:9/${i}`, subscriptions: ['license.deleted'] }),
      });
    const made = [];
    for (let i = 0; i < 20; i++) made.push(expectStatus(await endpoint(i), 201));
    expectCode(await endpoint(20), 422, 'WEBHOOK_ENDPOINTS_LIMIT_EXCEEDED');
    for (let round = 0; round < 2; round++) {
      expectStatus(await call('DELETE', `${own.path}/webhook-endpoints/${made.pop()!.id}`, { token: own.adminToken }), 204);
      made.push(expectStatus(await endpoint(21 + round), 201));
      expectCode(await endpoint(30 + round), 422, 'WEBHOOK_ENDPOINTS_LIMIT_EXCEEDED');
    }
    expect(await checkConsistency({ accountId: own.id })).toEqual([]);
  });

  it("a license's and a user's token registers: generate, revoke, generate; then the holder's delete", async () => {
    const {
      licenses: [license],
    } = await policyWith({});
    for (let round = 0; round < 2; round++) {
      const made = await l.api('POST', `/licenses/${license!.id}/tokens`);
      expectStatus(made, 200);
      await removed(`/tokens/${made.body.data.id}`);
    }
    expectStatus(await l.api('POST', `/licenses/${license!.id}/tokens`), 200);
    await removed(`/licenses/${license!.id}`);

    const user = await newUser(account);
    await removed(`/tokens/${user.tokenId}`);
    const login = await call('POST', `${account.path}/tokens`, { authorization: basic(user.email, user.password) });
    expectStatus(login, 201);
    await removed(`/tokens/${login.body.data.id}`);
    await removed(`/users/${user.id}`);
  });

  it('uniqueness markers: an e-mail, a license key and an environment code taken again once their holder is deleted', async () => {
    const email = `again-${randomUUID().slice(0, 8)}@users.example`;
    const user = await newUser(account, { email });
    await removed(`/users/${user.id}`);
    await newUser(account, { email });

    const { policy } = await policyWith({});
    const key = `key-${randomUUID()}`;
    const license = await l.license(policy.id, { key });
    await removed(`/licenses/${license.id}`);
    await l.license(policy.id, { key });

    const code = `again-${randomUUID().slice(0, 8)}`;
    const environment = await newEnvironment(account, 'ISOLATED', code);
    await removed(`/environments/${environment.id}`);
    await newEnvironment(account, 'ISOLATED', code);
  });

  it("the counts a parent's delete requires to hold only what it deletes: emptied by deletes, then the parent goes", async () => {
    const owner = await newUser(account);
    const { product, policy } = await policyWith({});
    for (let round = 0; round < 2; round++) {
      const license = await l.license(policy.id, {}, { owner: owner.id });
      const machine = await activated(license.id);
      const component = expectStatus(await addComponent(machine.id, `c-${randomUUID()}`), 201);
      const process = expectStatus(await startProcess(machine.id), 201);
      await removed(`/components/${component.id}`);
      await removed(`/processes/${process.id}`);
      await inRequest(`/machines/${machine.id}`);
      await inRequest(`/licenses/${license.id}`);
    }
    // The owner's collections, the policy's licenses, the product's policies: each emptied, each delete takes the parent.
    await inRequest(`/users/${owner.id}`);
    await inRequest(`/policies/${policy.id}`);
    await inRequest(`/products/${product.id}`);
  });
});

describe('afterwards', () => {
  it("every count of the account equals its members (the purge's and the cascade's second passes aside)", async () => {
    await localStackIdle();
    expect(await checkConsistency({ accountId: account.id })).toEqual([]);
  });
});
