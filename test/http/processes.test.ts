/**
 * Processes (docs/rules.md §24): started on a machine, pinged while they run, stopped, and
 * removed by the heartbeat sweeper once dead. The sweeper's look at one process
 * (`sweepProcess`) is called directly with a time in the future, never `sweep()` itself (it
 * would move the stack's shared cursor). Items are read and changed in the stack's table
 * (TABLE_NAME is set) where a test needs what the API does not show: counts, markers, the due
 * index, and a heartbeat moved back in time.
 */
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROCESS_PID_MARKER, processPidValue } from '#shared/resources/processes/entity.ts';
import { sweepProcess } from '#shared/resources/processes/sweep.ts';
import { db as storeClient } from '#shared/store/client.ts';
import {
  environmentMembership,
  type Key,
  licenseProcessCountKey,
  machineProcessCountKey,
  recordKey,
  uniqueKey,
} from '#shared/store/keys.ts';
import { call, environmentToken, newAccount, newEnvironment, newUser, type TestAccount } from '../support/client.ts';
import { doc, eventPayloads, expectCode, ids, licensing, listeningAccount, ref } from '../support/licensing.ts';
import type { Receiver } from '../support/receiver.ts';
import { purgeFinished, table, tableItem, tableName } from '../support/table.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
let receiver: Receiver;

beforeAll(async () => {
  ({ account, l, receiver } = await listeningAccount());
});
afterAll(() => receiver.close());

type Credentials = { token?: string; authorization?: string; environment?: string };

const start = (machineId: string, attributes: Record<string, unknown> = {}, credentials: Credentials = {}) =>
  l.api('POST', '/processes', {
    ...credentials,
    body: doc('processes', { pid: `pid-${randomUUID()}`, ...attributes }, { machine: ref('machines', machineId) }),
  });

/** A process started by the admin (or `credentials`), as the API answered. */
async function started(machineId: string, attributes: Record<string, unknown> = {}, credentials: Credentials = {}) {
  const reply = await start(machineId, attributes, credentials);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.data as { id: string; attributes: any; relationships: any; links: { self: string } };
}

const ping = (id: string, credentials: Credentials = {}) => l.api('POST', `/processes/${id}/actions/ping`, credentials);

/** The payloads of the account's events of `kind` about the record `id`, as the API lists them (each written with its change). */
const eventsAbout = (kind: string, id: string) => eventPayloads(account, kind, id);

const processKey = (id: string) => recordKey(account.id, 'processes', id);
/** The n of a count item (0 when there is none: a count at 0 is deleted). */
const countOf = async (key: Key) => Number((await tableItem(key))?.n ?? 0);

/** Moves a process's last heartbeat back by `seconds`, as if it had not pinged since (its place in the due index stays). */
async function ageHeartbeat(id: string, seconds: number) {
  const item = await tableItem(processKey(id));
  const last = new Date(Date.parse(item?.lastHeartbeat as string) - seconds * 1000).toISOString();
  await table().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: processKey(id),
      UpdateExpression: 'SET lastHeartbeat = :last',
      ExpressionAttributeValues: { ':last': last },
    }),
  );
  return last;
}

/** The sweeper's look at process `id` as the due index lists it, at `at` (ms since the epoch). */
async function sweepAt(id: string, at: number) {
  const item = await tableItem(processKey(id));
  const due = (item?.DUESK as string | undefined) ?? new Date(at).toISOString();
  return sweepProcess({ ...processKey(id), due }, at);
}

/** Just after the deadline of a process whose heartbeat lasts `interval` seconds. */
const afterDeadline = (process: { attributes: { nextHeartbeat: string } }) => Date.parse(process.attributes.nextHeartbeat) + 1;

describe.concurrent('processes', () => {
  it('starts a process: 201 with the documented attributes, relationships and links, and process.created', async () => {
    const g = await l.graph();
    const reply = await start(g.machine.id, { pid: '4242', metadata: { argv: ['app', '--serve'] } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const p = reply.body.data;
    expect(p.type).toBe('processes');
    expect(p.attributes).toEqual({
      pid: '4242',
      status: 'ALIVE',
      interval: 600,
      lastHeartbeat: p.attributes.created,
      nextHeartbeat: new Date(Date.parse(p.attributes.created) + 600_000).toISOString(),
      metadata: { argv: ['app', '--serve'] },
      created: expect.any(String),
      updated: p.attributes.created,
    });
    expect(p.links.self).toBe(`${account.path}/processes/${p.id}`);
    expect(p.relationships.account).toEqual({ links: { related: account.path }, data: { type: 'accounts', id: account.id } });
    expect(p.relationships.environment).toEqual({ data: null });
    for (const [name, type, id] of [
      ['product', 'products', g.product.id],
      ['license', 'licenses', g.license.id],
      ['machine', 'machines', g.machine.id],
    ]) {
      expect(p.relationships[name]).toEqual({ links: { related: `${account.path}/processes/${p.id}/${name}` }, data: { type, id } });
    }
    const [event] = await eventsAbout('process.created', p.id);
    expect(event.data).toEqual(p);
    // In the sweeper's index at the first millisecond it is dead.
    const item = await tableItem(processKey(p.id));
    expect(item?.DUESK).toBe(new Date(Date.parse(p.attributes.nextHeartbeat) + 1).toISOString());
    expect(item?.DUEPK).toBe(`DUE#${Math.floor((Date.parse(p.attributes.nextHeartbeat) + 1) / 60_000)}`);
  });

  it('every emitted link resolves (200) for the admin and for the license', async () => {
    const g = await l.graph();
    const p = await started(g.machine.id);
    const links = [p.links.self, ...Object.values(p.relationships).map((r: any) => r.links?.related)].filter(Boolean);
    const licenseToken = await l.licenseToken(g.license.id);
    for (const token of [account.adminToken, licenseToken]) {
      // The account is the administrators' to read.
      for (const link of token === licenseToken ? links.filter((link) => link !== account.path) : links) {
        const reply = await call('GET', link, { token });
        expect(reply.status, `${link}: ${JSON.stringify(reply.body)}`).toBe(200);
      }
    }
    const machine = await call('GET', `${p.links.self}/machine`, { token: licenseToken });
    expect(machine.body.data).toMatchObject({ type: 'machines', id: g.machine.id });
  });

  it("interval and nextHeartbeat follow the policy's heartbeatDuration as it is now", async () => {
    const g = await l.graph({ policy: { heartbeatDuration: 120 } });
    const p = await started(g.machine.id);
    expect(p.attributes.interval).toBe(120);
    expect(p.attributes.nextHeartbeat).toBe(new Date(Date.parse(p.attributes.lastHeartbeat) + 120_000).toISOString());
    const changed = await l.api('PATCH', `/policies/${g.policy.id}`, { body: doc('policies', { heartbeatDuration: 3600 }) });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const shown = (await l.api('GET', `/processes/${p.id}`)).body.data.attributes;
    expect(shown).toMatchObject({
      interval: 3600,
      nextHeartbeat: new Date(Date.parse(p.attributes.lastHeartbeat) + 3_600_000).toISOString(),
    });
  });

  it('retrieves, lists with the filters machine, license, owner/user and product, and lists a machine’s processes', async () => {
    const user = await newUser(account);
    const g = await l.graph({ owner: user.id });
    const second = await l.machine(g.license.id);
    const other = await l.graph();
    const [a, b, c] = [await started(g.machine.id), await started(second.id), await started(g.machine.id)];
    const elsewhere = await started(other.machine.id);
    const got = await l.api('GET', `/processes/${a.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(a);
    expect(ids(await l.api('GET', `/processes?machine=${g.machine.id}`))).toEqual([c.id, a.id]);
    expect(ids(await l.api('GET', `/processes?license=${g.license.id}`))).toEqual([c.id, b.id, a.id]);
    expect(ids(await l.api('GET', `/processes?owner=${user.id}`))).toEqual([c.id, b.id, a.id]);
    expect(ids(await l.api('GET', `/processes?user=${user.id}&machine=${second.id}`))).toEqual([b.id]);
    expect(ids(await l.api('GET', `/processes?product=${other.product.id}`))).toEqual([elsewhere.id]);
    expect(ids(await l.api('GET', `/processes?product=${other.product.id}&license=${g.license.id}`))).toEqual([]);
    expect(ids(await l.api('GET', `/machines/${g.machine.id}/processes`))).toEqual([c.id, a.id]);
    // A machine named by its fingerprint, as Keygen's SDKs name it.
    expect(ids(await l.api('GET', `/machines/${encodeURIComponent(second.attributes.fingerprint)}/processes`))).toEqual([b.id]);
    expect(ids(await l.api('GET', `/machines/${g.machine.id}/processes?license=${other.license.id}`))).toEqual([]);
    const listed = await l.api('GET', `/processes?machine=${g.machine.id}&page[size]=1`);
    expect(listed.body.links.meta).toEqual({ pages: 2, count: 2 });
    expectCode(await l.api('GET', '/processes?machine=nope'), 400);
    expectCode(await l.api('GET', `/processes/${randomUUID()}`), 404, 'NOT_FOUND');
    expectCode(await l.api('GET', `/machines/${randomUUID()}/processes`), 404, 'NOT_FOUND');
  });

  it('stops a process: 204, permanently, with process.deleted; its pid is free again on its machine', async () => {
    const g = await l.graph();
    const p = await started(g.machine.id, { pid: 'reused' });
    const marker = uniqueKey(account.id, PROCESS_PID_MARKER, processPidValue(g.machine.id, 'reused'));
    expect((await tableItem(marker))?.ref).toBe(processKey(p.id).PK);
    const reply = await l.api('DELETE', `/processes/${p.id}`);
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    expectCode(await l.api('GET', `/processes/${p.id}`), 404, 'NOT_FOUND');
    expectCode(await l.api('DELETE', `/processes/${p.id}`), 404, 'NOT_FOUND');
    expectCode(await ping(p.id), 404, 'NOT_FOUND');
    expect(await tableItem(marker)).toBeUndefined();
    const [event] = await eventsAbout('process.deleted', p.id);
    expect(event.data).toMatchObject({ id: p.id, attributes: { pid: 'reused', status: 'ALIVE' } });
    expect((await started(g.machine.id, { pid: 'reused' })).attributes.pid).toBe('reused');
  });

  it('a pid is unique on its machine (422 PID_TAKEN), not across machines; concurrent starts with one pid: one wins', async () => {
    const g = await l.graph();
    const second = await l.machine(g.license.id);
    await started(g.machine.id, { pid: '1' });
    const taken = expectCode(await start(g.machine.id, { pid: '1' }), 422, 'PID_TAKEN');
    expect(taken.source).toEqual({ pointer: '/data/attributes/pid' });
    await started(second.id, { pid: '1' });
    // Case and spaces are part of the pid.
    await started(g.machine.id, { pid: 'A 1' });
    await started(g.machine.id, { pid: 'a 1' });
    const racing = await Promise.all(Array.from({ length: 5 }, () => start(g.machine.id, { pid: 'race' })));
    expect(racing.map((reply) => reply.status).sort()).toEqual([201, 422, 422, 422, 422]);
    expect(ids(await l.api('GET', `/processes?machine=${g.machine.id}`))).toHaveLength(4);
  });

  it('refuses a bad body with 400 and a broken rule with 422, changing nothing', async () => {
    const g = await l.graph();
    const machine = { machine: ref('machines', g.machine.id) };
    const post = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) =>
      l.api('POST', '/processes', { body: doc('processes', attributes, relationships) });
    expect(expectCode(await post({ pid: '1' }), 400).source).toEqual({ pointer: '/data/relationships' });
    expect(expectCode(await post({}, machine), 400).source).toEqual({ pointer: '/data/attributes/pid' });
    expect(expectCode(await post({ pid: ' ' }, machine), 400).detail).toBe('cannot be blank');
    expect(expectCode(await post({ pid: 42 }, machine), 400).source).toEqual({ pointer: '/data/attributes/pid' });
    expect(expectCode(await post({ pid: '1', status: 'DEAD' }, machine), 400).source).toEqual({ pointer: '/data/attributes/status' });
    expect(expectCode(await post({ pid: '1', metadata: [] }, machine), 400).source).toEqual({ pointer: '/data/attributes/metadata' });
    expectCode(await post({ pid: '1' }, { machine: ref('licenses', g.license.id) }), 400);
    const wrongType = await l.api('POST', '/processes', { body: doc('machines', { pid: '1' }, machine) });
    expect(expectCode(wrongType, 400).source).toEqual({ pointer: '/data/type' });

    expect(expectCode(await post({ pid: 'p'.repeat(256) }, machine), 422, 'PID_TOO_LONG').source).toEqual({
      pointer: '/data/attributes/pid',
    });
    expect((await post({ pid: 'p'.repeat(255) }, machine)).status).toBe(201);
    const tooLarge = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i]));
    expectCode(await post({ pid: '2', metadata: tooLarge }, machine), 422, 'METADATA_TOO_LARGE');
    const missing = expectCode(await post({ pid: '3' }, { machine: ref('machines', randomUUID()) }), 422, 'MACHINE_NOT_FOUND');
    expect(missing.source).toEqual({ pointer: '/data/relationships/machine' });
    expectCode(await post({ pid: '3' }, { machine: ref('machines', 'not-a-uuid') }), 422, 'MACHINE_NOT_FOUND');
    // Another account's machine, and one of an ISOLATED environment, do not exist from here.
    const foreign = await licensing(await newAccount()).graph();
    expectCode(await post({ pid: '3' }, { machine: ref('machines', foreign.machine.id) }), 422, 'MACHINE_NOT_FOUND');
    const isolated = await newEnvironment(account, 'ISOLATED');
    const inside = await l.graph({ token: await environmentToken(account, isolated.code), environment: isolated.code });
    expectCode(await post({ pid: '3' }, { machine: ref('machines', inside.machine.id) }), 422, 'MACHINE_NOT_FOUND');
    expect(ids(await l.api('GET', `/processes?machine=${g.machine.id}`))).toHaveLength(1);
  });

  it('a ping keeps a process alive one more interval from now: 200 and process.heartbeat.ping', async () => {
    const g = await l.graph({ policy: { heartbeatDuration: 300 } });
    const p = await started(g.machine.id);
    const reply = await ping(p.id);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const pinged = reply.body.data;
    expect(Date.parse(pinged.attributes.lastHeartbeat)).toBeGreaterThanOrEqual(Date.parse(p.attributes.lastHeartbeat));
    expect(pinged.attributes).toMatchObject({
      status: 'ALIVE',
      interval: 300,
      nextHeartbeat: new Date(Date.parse(pinged.attributes.lastHeartbeat) + 300_000).toISOString(),
      updated: pinged.attributes.lastHeartbeat,
      created: p.attributes.created,
      pid: p.attributes.pid,
    });
    expect((await l.api('GET', `/processes/${p.id}`)).body.data).toEqual(pinged);
    const [event] = await eventsAbout('process.heartbeat.ping', p.id);
    expect(event.data).toEqual(pinged);
    // The due index follows the ping.
    expect((await tableItem(processKey(p.id)))?.DUESK).toBe(new Date(Date.parse(pinged.attributes.nextHeartbeat) + 1).toISOString());
    // Concurrent pings all succeed: each judges the process as it finds it, and each is told.
    const pings = await Promise.all(Array.from({ length: 4 }, () => ping(p.id)));
    expect(pings.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await eventsAbout('process.heartbeat.ping', p.id)).toHaveLength(5);
    expectCode(await ping(randomUUID()), 404, 'NOT_FOUND');
  });

  it('a process past its interval is DEAD: a ping is refused with 422 PROCESS_HEARTBEAT_DEAD and emits nothing', async () => {
    const g = await l.graph({ policy: { heartbeatDuration: 60 } });
    const p = await started(g.machine.id);
    const last = await ageHeartbeat(p.id, 61);
    const shown = (await l.api('GET', `/processes/${p.id}`)).body.data.attributes;
    expect(shown).toMatchObject({ status: 'DEAD', lastHeartbeat: last, nextHeartbeat: new Date(Date.parse(last) + 60_000).toISOString() });
    const refused = expectCode(await ping(p.id), 422, 'PROCESS_HEARTBEAT_DEAD');
    expect(refused.detail).toBe('is dead');
    expect((await l.api('GET', `/processes/${p.id}`)).body.data.attributes.lastHeartbeat).toBe(last);
    expect(await eventsAbout('process.heartbeat.ping', p.id)).toEqual([]);
  });
});

describe.concurrent('the sweeper and processes', () => {
  it('removes a process past its deadline once, gives its count back, and emits process.heartbeat.dead (not process.deleted)', async () => {
    const g = await l.graph({ policy: { maxProcesses: 1 } });
    const p = await started(g.machine.id, { pid: 'swept' });
    expect(await countOf(machineProcessCountKey(account.id, g.machine.id))).toBe(1);
    expectCode(await start(g.machine.id), 422, 'MACHINE_PROCESS_LIMIT_EXCEEDED');
    const at = afterDeadline(p);
    await sweepAt(p.id, at);
    expectCode(await l.api('GET', `/processes/${p.id}`), 404, 'NOT_FOUND');
    expect(await countOf(machineProcessCountKey(account.id, g.machine.id))).toBe(0);
    expect(await countOf(licenseProcessCountKey(account.id, g.license.id))).toBe(0);
    expect(await tableItem(uniqueKey(account.id, PROCESS_PID_MARKER, processPidValue(g.machine.id, 'swept')))).toBeUndefined();
    const events = await eventsAbout('process.heartbeat.dead', p.id);
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ id: p.id, attributes: { status: 'DEAD', pid: 'swept' } });
    expect(await eventsAbout('process.deleted', p.id)).toEqual([]);
    // Looked at again (a minute swept twice): nothing more.
    await sweepProcess({ ...processKey(p.id), due: new Date(at).toISOString() }, at);
    expect(await eventsAbout('process.heartbeat.dead', p.id)).toHaveLength(1);
    // Its place is free.
    await started(g.machine.id, { pid: 'swept' });
  });

  it('two concurrent looks at one dead process: one removal, one event', async () => {
    const g = await l.graph();
    const p = await started(g.machine.id);
    const at = afterDeadline(p);
    await Promise.all([sweepAt(p.id, at), sweepAt(p.id, at), sweepAt(p.id, at)]);
    expectCode(await l.api('GET', `/processes/${p.id}`), 404, 'NOT_FOUND');
    expect(await eventsAbout('process.heartbeat.dead', p.id)).toHaveLength(1);
    expect(await countOf(machineProcessCountKey(account.id, g.machine.id))).toBe(0);
  });

  it('leaves alone a process alive at the sweep, one pinged since it fell due, and one pinged while the sweep looks at it', async () => {
    const g = await l.graph();
    const [alive, pinged, racing] = [await started(g.machine.id), await started(g.machine.id), await started(g.machine.id)];
    // Alive at the sweep's time: untouched, still due when it was.
    const due = (await tableItem(processKey(alive.id)))?.DUESK;
    await sweepAt(alive.id, Date.now());
    expect((await tableItem(processKey(alive.id)))?.DUESK).toBe(due);
    expect((await l.api('GET', `/processes/${alive.id}`)).body.data.attributes.status).toBe('ALIVE');

    // Fell due at its first deadline, pinged since: the sweep at that deadline finds it alive and due later.
    const wasDue = { ...processKey(pinged.id), due: (await tableItem(processKey(pinged.id)))?.DUESK as string };
    expect((await ping(pinged.id)).status).toBe(200);
    await sweepProcess(wasDue, afterDeadline(pinged));
    expect((await l.api('GET', `/processes/${pinged.id}`)).status).toBe(200);

    // Pinged between the sweep's read and its write: the removal, conditional on the process as read, does not happen.
    const spy = `processes-ping-race-${racing.id}`;
    let pingedMeanwhile = false;
    storeClient().middlewareStack.add(
      (next, context) => async (args) => {
        const input = (args as { input: { TransactItems?: { Delete?: { Key?: Key } }[] } }).input;
        const removing = input.TransactItems?.some((operation) => operation.Delete?.Key?.PK === processKey(racing.id).PK);
        if (context.commandName === 'TransactWriteItemsCommand' && removing && !pingedMeanwhile) {
          pingedMeanwhile = true;
          expect((await ping(racing.id)).status).toBe(200);
        }
        return next(args);
      },
      { step: 'initialize', name: spy },
    );
    try {
      await sweepAt(racing.id, afterDeadline(racing));
    } finally {
      storeClient().middlewareStack.remove(spy);
    }
    expect(pingedMeanwhile).toBe(true);
    expect((await l.api('GET', `/processes/${racing.id}`)).body.data.attributes.status).toBe('ALIVE');
    expect(await eventsAbout('process.heartbeat.dead', racing.id)).toEqual([]);
    expect(await countOf(machineProcessCountKey(account.id, g.machine.id))).toBe(3);
  });

  it('moves a process a lengthened heartbeat keeps alive at its due time to its new one, and removes it then', async () => {
    const g = await l.graph({ policy: { heartbeatDuration: 600 } });
    const p = await started(g.machine.id);
    const first = afterDeadline(p);
    expect((await l.api('PATCH', `/policies/${g.policy.id}`, { body: doc('policies', { heartbeatDuration: 7200 }) })).status).toBe(200);
    await sweepAt(p.id, first);
    const moved = new Date(Date.parse(p.attributes.lastHeartbeat) + 7_200_000 + 1).toISOString();
    expect((await tableItem(processKey(p.id)))?.DUESK).toBe(moved);
    await sweepAt(p.id, Date.parse(moved));
    expectCode(await l.api('GET', `/processes/${p.id}`), 404, 'NOT_FOUND');
    expect(await eventsAbout('process.heartbeat.dead', p.id)).toHaveLength(1);
  });
});

describe.concurrent('maxProcesses', () => {
  /** A license under a policy with these attributes, with two machines. */
  async function twoMachines(policy: Record<string, unknown>) {
    const g = await l.graph({ policy });
    return { ...g, second: await l.machine(g.license.id) };
  }

  function expectLimit(reply: Awaited<ReturnType<typeof start>>, detail: string) {
    const error = expectCode(reply, 422, 'MACHINE_PROCESS_LIMIT_EXCEEDED');
    expect(error.source).toEqual({ pointer: '/data' });
    expect(error.detail).toBe(detail);
  }

  it('PER_MACHINE (the default) bounds each machine; a stopped process frees its place', async () => {
    const g = await twoMachines({ maxProcesses: 2 });
    const [a] = [await started(g.machine.id), await started(g.machine.id)];
    expectLimit(await start(g.machine.id), 'process count has exceeded maximum allowed for machine (2)');
    await started(g.second.id);
    await started(g.second.id);
    expectLimit(await start(g.second.id), 'process count has exceeded maximum allowed for machine (2)');
    expect((await l.api('DELETE', `/processes/${a?.id}`)).status).toBe(204);
    await started(g.machine.id);
    expect(await countOf(machineProcessCountKey(account.id, g.machine.id))).toBe(2);
    expect(await countOf(licenseProcessCountKey(account.id, g.license.id))).toBe(4);
  });

  it("PER_LICENSE bounds the license's processes across its machines", async () => {
    const g = await twoMachines({ maxProcesses: 3, processLeasingStrategy: 'PER_LICENSE' });
    await started(g.machine.id);
    await started(g.second.id);
    const third = await started(g.second.id);
    for (const machine of [g.machine.id, g.second.id]) {
      expectLimit(await start(machine), 'process count has exceeded maximum allowed for license (3)');
    }
    expect((await l.api('DELETE', `/processes/${third.id}`)).status).toBe(204);
    await started(g.machine.id);
  });

  it('a change of processLeasingStrategy is judged at once by the counts as they are', async () => {
    const g = await twoMachines({ maxProcesses: 2 });
    await started(g.machine.id);
    await started(g.second.id);
    const changed = await l.api('PATCH', `/policies/${g.policy.id}`, { body: doc('policies', { processLeasingStrategy: 'PER_LICENSE' }) });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expectLimit(await start(g.machine.id), 'process count has exceeded maximum allowed for license (2)');
    const back = await l.api('PATCH', `/policies/${g.policy.id}`, { body: doc('policies', { processLeasingStrategy: 'PER_MACHINE' }) });
    expect(back.status).toBe(200);
    await started(g.machine.id);
  });

  it('allows the overage of the policy’s strategy: 2×, 1.25×, 1.5×, always', async () => {
    for (const [overageStrategy, maxProcesses, allowed] of [
      ['ALLOW_2X_OVERAGE', 2, 4],
      ['ALLOW_1_25X_OVERAGE', 4, 5],
      ['ALLOW_1_5X_OVERAGE', 2, 3],
    ] as const) {
      const g = await l.graph({ policy: { maxProcesses, overageStrategy } });
      for (let i = 0; i < allowed; i++) await started(g.machine.id);
      expectLimit(await start(g.machine.id), `process count has exceeded maximum allowed for machine (${maxProcesses})`);
    }
    const always = await l.graph({
      policy: { maxProcesses: 1, overageStrategy: 'ALWAYS_ALLOW_OVERAGE', processLeasingStrategy: 'PER_LICENSE' },
    });
    for (let i = 0; i < 4; i++) await started(always.machine.id);
  });

  it('holds under concurrency: of 10 parallel starts under maxProcesses 3, exactly 3 succeed (PER_MACHINE and PER_LICENSE)', async () => {
    for (const processLeasingStrategy of ['PER_MACHINE', 'PER_LICENSE']) {
      const g = await twoMachines({ maxProcesses: 3, processLeasingStrategy });
      const machines = processLeasingStrategy === 'PER_LICENSE' ? [g.machine.id, g.second.id] : [g.machine.id];
      const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => start(machines[i % machines.length] as string)));
      const statuses = replies.map((reply) => reply.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(3);
      for (const reply of replies.filter((r) => r.status !== 201)) expectCode(reply, 422, 'MACHINE_PROCESS_LIMIT_EXCEEDED');
      expect(ids(await l.api('GET', `/processes?license=${g.license.id}`))).toHaveLength(3);
      expect(await countOf(licenseProcessCountKey(account.id, g.license.id))).toBe(3);
    }
  });
});

describe.concurrent('who may start, ping, stop and read processes', () => {
  it('the product and the license on their own machines; on others the machine is not found and the process not seen', async () => {
    const g = await l.graph();
    const other = await l.graph();
    const theirs = await started(other.machine.id);
    const credentials: Credentials[] = [
      { token: await l.productToken(g.product.id) },
      { token: await l.licenseToken(g.license.id) },
      { authorization: `License ${g.license.attributes.key}` },
    ];
    for (const as of credentials) {
      const p = await started(g.machine.id, {}, as);
      expect((await ping(p.id, as)).status).toBe(200);
      expect(ids(await l.api('GET', '/processes', as))).toContain(p.id);
      expect(ids(await l.api('GET', '/processes', as))).not.toContain(theirs.id);
      expectCode(await start(other.machine.id, {}, as), 422, 'MACHINE_NOT_FOUND');
      expectCode(await l.api('GET', `/processes/${theirs.id}`, as), 404);
      expectCode(await ping(theirs.id, as), 404);
      expectCode(await l.api('DELETE', `/processes/${theirs.id}`, as), 404);
      expect((await l.api('DELETE', `/processes/${p.id}`, as)).status).toBe(204);
    }
  });

  it('an environment token and an admin inside the environment; a read-only token reads but neither starts, pings nor stops', async () => {
    const shared = await newEnvironment(account, 'SHARED');
    const token = await environmentToken(account, shared.code);
    const g = await l.graph({ token, environment: shared.code });
    const as = { token, environment: shared.code };
    const p = await started(g.machine.id, {}, as);
    expect(p.relationships.environment.data).toEqual({ type: 'environments', id: shared.id });
    const reader = { token: await environmentToken(account, shared.code, ['process.read', 'machine.read']), environment: shared.code };
    expect((await l.api('GET', `/processes/${p.id}`, reader)).status).toBe(200);
    expect(ids(await l.api('GET', `/machines/${g.machine.id}/processes`, reader))).toEqual([p.id]);
    expectCode(await start(g.machine.id, {}, reader), 403);
    expectCode(await ping(p.id, reader), 403);
    expectCode(await l.api('DELETE', `/processes/${p.id}`, reader), 403);
    // From the global environment the SHARED environment's process does not exist.
    expectCode(await l.api('GET', `/processes/${p.id}`), 404);
    expect((await ping(p.id, as)).status).toBe(200);
    expect((await l.api('DELETE', `/processes/${p.id}`, as)).status).toBe(204);
  });

  it('the owning user, unless the license is protected; another user sees nothing', async () => {
    const user = await newUser(account);
    const stranger = await newUser(account);
    const g = await l.graph({ owner: user.id });
    const guarded = await l.graph({ owner: user.id, policy: { protected: true } });
    const as = { token: user.token };
    const mine = await started(g.machine.id, {}, as);
    expect((await ping(mine.id, as)).status).toBe(200);
    expect(ids(await l.api('GET', '/processes', as))).toEqual([mine.id]);

    // Protected: the user reads, but neither starts, pings nor stops; the license itself does.
    expectCode(await start(guarded.machine.id, {}, as), 403);
    const guardedProcess = await started(guarded.machine.id);
    expect((await l.api('GET', `/processes/${guardedProcess.id}`, as)).status).toBe(200);
    expectCode(await ping(guardedProcess.id, as), 403);
    expectCode(await l.api('DELETE', `/processes/${guardedProcess.id}`, as), 403);
    const licenseKey = { authorization: `License ${guarded.license.attributes.key}` };
    expect((await ping(guardedProcess.id, licenseKey)).status).toBe(200);

    const theirs = { token: stranger.token };
    expectCode(await start(g.machine.id, {}, theirs), 422, 'MACHINE_NOT_FOUND');
    expectCode(await l.api('GET', `/processes/${mine.id}`, theirs), 404);
    expectCode(await ping(mine.id, theirs), 404);
    expect(ids(await l.api('GET', '/processes', theirs))).toEqual([]);
    expect((await l.api('DELETE', `/processes/${mine.id}`, as)).status).toBe(204);
  });
});

describe.concurrent('PATCH /processes/{id}: its metadata, as Keygen', () => {
  const patch = (id: string, attributes: Record<string, unknown>, credentials: Credentials = {}) =>
    l.api('PATCH', `/processes/${id}`, { ...credentials, body: doc('processes', attributes) });

  it('changes the metadata alone, with its event; the pid and anything else are unpermitted', async () => {
    const g = await l.graph();
    const p = await started(g.machine.id, { metadata: { build: 1 } });
    const reply = await patch(p.id, { metadata: { build: 2 } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data.attributes).toMatchObject({ pid: p.attributes.pid, metadata: { build: 2 }, status: 'ALIVE' });
    expect((await l.api('GET', `/processes/${p.id}`)).body.data.attributes.metadata).toEqual({ build: 2 });
    expect((await eventsAbout('process.updated', p.id)).map((payload) => payload.data.attributes.metadata)).toEqual([{ build: 2 }]);
    expectCode(await patch(p.id, { pid: 'another' }), 400, 'PARAMETER_INVALID');
    expectCode(await patch(p.id, { metadata: 'not an object' }), 400, 'PARAMETER_INVALID');
    expectCode(await patch(randomUUID(), { metadata: {} }), 404);
  });

  it('who: as for stopping it (the owning user not on a protected license; a stranger sees nothing)', async () => {
    const user = await newUser(account);
    const stranger = await newUser(account);
    const g = await l.graph({ owner: user.id });
    const guarded = await l.graph({ owner: user.id, policy: { protected: true } });
    const mine = await started(g.machine.id);
    const theirs = await started(guarded.machine.id);
    expect((await patch(mine.id, { metadata: { by: 'owner' } }, { token: user.token })).status).toBe(200);
    expectCode(await patch(theirs.id, { metadata: { by: 'owner' } }, { token: user.token }), 403);
    const licenseKey = { authorization: `License ${guarded.license.attributes.key}` };
    expect((await patch(theirs.id, { metadata: { by: 'license' } }, licenseKey)).status).toBe(200);
    expectCode(await patch(mine.id, { metadata: {} }, { token: stranger.token }), 404);
  });
});

describe.concurrent('removals take processes with them', () => {
  it("a machine's deactivation removes its processes, their markers and its count (no process.deleted)", async () => {
    const g = await l.graph();
    const second = await l.machine(g.license.id);
    const [a, b] = [await started(g.machine.id, { pid: 'gone' }), await started(g.machine.id)];
    const kept = await started(second.id);
    expect((await l.api('DELETE', `/machines/${g.machine.id}`)).status).toBe(204);
    for (const p of [a, b]) expectCode(await l.api('GET', `/processes/${p.id}`), 404);
    expect((await l.api('GET', `/processes/${kept.id}`)).status).toBe(200);
    expect(await tableItem(machineProcessCountKey(account.id, g.machine.id))).toBeUndefined();
    expect(await tableItem(uniqueKey(account.id, PROCESS_PID_MARKER, processPidValue(g.machine.id, 'gone')))).toBeUndefined();
    expect(await countOf(licenseProcessCountKey(account.id, g.license.id))).toBe(1);
    expect(await eventsAbout('process.deleted', a.id)).toEqual([]);
  });

  it("a license's, a policy's and a product's removal remove their processes and the license's count", async () => {
    for (const [type, pick] of [
      ['licenses', (g: Awaited<ReturnType<typeof l.graph>>) => g.license.id],
      ['policies', (g: Awaited<ReturnType<typeof l.graph>>) => g.policy.id],
      ['products', (g: Awaited<ReturnType<typeof l.graph>>) => g.product.id],
    ] as const) {
      const g = await l.graph();
      const p = await started(g.machine.id);
      expect((await l.api('DELETE', `/${type}/${pick(g)}`)).status).toBe(204);
      expect(await tableItem(processKey(p.id))).toBeUndefined();
      expect(await tableItem(licenseProcessCountKey(account.id, g.license.id))).toBeUndefined();
      expect(await tableItem(machineProcessCountKey(account.id, g.machine.id))).toBeUndefined();
    }
  });

  it("a global machine's processes in a SHARED environment are its share; the environment's purge removes them and gives it back", async () => {
    const shared = await newEnvironment(account, 'SHARED');
    const token = await environmentToken(account, shared.code);
    const g = await l.graph({ policy: { maxProcesses: 2 } });
    await started(g.machine.id);
    const inShared = await started(g.machine.id, {}, { token, environment: shared.code });
    expectCode(await start(g.machine.id), 422, 'MACHINE_PROCESS_LIMIT_EXCEEDED');
    const shareKey = machineProcessCountKey(account.id, g.machine.id, shared.id);
    expect(await tableItem(shareKey)).toEqual({ ...shareKey, n: 1, ENVPK: environmentMembership(account.id, shared.id) });
    expect(await countOf(licenseProcessCountKey(account.id, g.license.id, shared.id))).toBe(1);
    expect(await countOf(machineProcessCountKey(account.id, g.machine.id))).toBe(2);

    expect((await call('DELETE', `${account.path}/environments/${shared.id}`, { token: account.adminToken })).status).toBe(204);
    await purgeFinished(account.id, shared.id);
    expect(await tableItem(processKey(inShared.id))).toBeUndefined();
    expect(await tableItem(shareKey)).toBeUndefined();
    expect(await countOf(machineProcessCountKey(account.id, g.machine.id))).toBe(1);
    expect(await countOf(licenseProcessCountKey(account.id, g.license.id))).toBe(1);
    await started(g.machine.id);
  });
});
