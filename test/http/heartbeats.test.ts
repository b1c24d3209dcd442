/**
 * Machine heartbeats (docs/rules.md §22): ping and reset over HTTP, under both paths and by
 * fingerprint, for every kind of bearer; death, resurrection and the 422 of a machine past it.
 * A machine's heartbeat is moved back, or its due time ahead, in the table itself (the test
 * stack's DynamoDB; TABLE_NAME is set), rather than waited for.
 *
 * The sweeper's judgement of a machine is tested by calling the machines' due handler directly
 * with a time ahead of now (never `sweep()`, whose cursor the stack's own sweeper shares), on
 * machines whose due time lies a day ahead, where the stack's sweeper does not reach them. One
 * test waits for the stack's sweeper itself (every 2 s in the test stack) to cull a machine that
 * never pinged; it runs alongside the others.
 */
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MACHINE_FINGERPRINT_MARKER, machineFingerprintValue } from '#shared/resources/machines/entity.ts';
import { machineDue } from '#shared/resources/machines/sweep.ts';
import { WALK_LICENSES } from '#shared/resources/policies/sweep.ts';
import { db, getTable } from '#shared/store/client.ts';
import { type Due, dueAttributes } from '#shared/store/due.ts';
import { recordKey, uniqueKey } from '#shared/store/keys.ts';
import { getItem, type Item } from '#shared/store/records.ts';
import { environmentToken, newEnvironment, newUser, type Reply, type TestAccount } from '../support/client.ts';
import { localStackIdle } from '../support/idle.ts';
import { doc, eventPayloads, expectCode, type licensing, listeningAccount, ref } from '../support/licensing.ts';
import { storeMachine } from '../support/machines.ts';
import { until } from '../support/patience.ts';
import type { Receiver } from '../support/receiver.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
let receiver: Receiver;

beforeAll(async () => {
  ({ account, l, receiver } = await listeningAccount());
});
afterAll(() => receiver.close());

const SECOND = 1000;
const MINUTE = 60 * SECOND;
/** Where the machines judged by the handler are due: beyond any test's run, so the stack's sweeper never reaches them. */
const farAhead = () => Math.ceil((Date.now() + 86_400_000) / MINUTE) * MINUTE;

type Options = { token?: string; authorization?: string; environment?: string };

const ping = (id: string, options: Options = {}, path = 'ping') =>
  l.api('POST', `/machines/${encodeURIComponent(id)}/actions/${path}`, options);
const reset = (id: string, options: Options = {}, path = 'reset') =>
  l.api('POST', `/machines/${encodeURIComponent(id)}/actions/${path}`, options);

/** A product, a policy with these heartbeat settings, a license (owned by `owner`) and one machine. */
async function heartbeatGraph(policy: Record<string, unknown> = {}, license: Record<string, unknown> = {}, owner?: string) {
  return l.graph({ policy, license, owner });
}

/** A policy whose machines must ping every minute. */
const everyMinute = (extra: Record<string, unknown> = {}) => ({ requireHeartbeat: true, heartbeatDuration: 60, ...extra });

const machineItem = (id: string): Promise<Item | undefined> => getItem(recordKey(account.id, 'machines', id));

/** The last heartbeat the machine's fingerprint marker carries (null: none). */
async function markerHeartbeat(machine: { attributes: { fingerprint: string }; relationships: any }): Promise<string | null> {
  const licenseId = machine.relationships.license.data.id as string;
  const marker = await getItem(
    uniqueKey(account.id, MACHINE_FINGERPRINT_MARKER, machineFingerprintValue(licenseId, machine.attributes.fingerprint)),
  );
  expect(marker, 'the machine has a fingerprint marker').toBeDefined();
  return (marker?.lastHeartbeat as string | undefined) ?? null;
}

/** Sets a machine's heartbeat attributes in the table: a ping made long ago, a due time elsewhere, a death announced. */
async function setMachine(
  id: string,
  values: { lastHeartbeat?: number; due?: number; heartbeatDeathAnnounced?: string; created?: number },
) {
  const sets: Record<string, unknown> = {};
  if (values.lastHeartbeat !== undefined) sets.lastHeartbeat = new Date(values.lastHeartbeat).toISOString();
  if (values.created !== undefined) sets.created = new Date(values.created).toISOString();
  if (values.due !== undefined) Object.assign(sets, dueAttributes(new Date(values.due)));
  if (values.heartbeatDeathAnnounced !== undefined) sets.heartbeatDeathAnnounced = values.heartbeatDeathAnnounced;
  // On the marker too, as every write of the service keeps them in step (validation reads the marker).
  await storeMachine(account.id, id, sets);
}

/** The machine as the sweeper would hand it over: its key and its due time as stored. */
async function dueOf(id: string): Promise<Due> {
  const item = await machineItem(id);
  if (!item?.DUESK) throw new Error(`machine ${id} is not in the due index: ${JSON.stringify(item)}`);
  return { PK: item.PK, SK: item.SK, due: item.DUESK as string };
}

/** The payloads of the account's webhook events of `kind` about machine `id` (each is written with its change). */
const eventsAbout = (kind: string, id: string) => eventPayloads(account, kind, id);

const attributesOf = (reply: Reply) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data.attributes;
};

/** Between two instants taken around a request (ms), as ISO 8601. */
const expectWithin = (iso: string, before: number, after: number) => {
  expect(Date.parse(iso)).toBeGreaterThanOrEqual(before);
  expect(Date.parse(iso)).toBeLessThanOrEqual(after);
};

describe.concurrent('machine heartbeats', () => {
  // First, so that its minute runs alongside the rest.
  it('a machine that must ping every minute and never does is culled by the stack’s sweeper: its death, then its deletion, reach the endpoint', async () => {
    const { machine } = await heartbeatGraph(everyMinute());
    expect(machine.attributes).toMatchObject({ requireHeartbeat: true, heartbeatStatus: 'ALIVE', heartbeatDuration: 60 });
    const about = (kind: string) => (deliveries: typeof receiver.deliveries) =>
      deliveries.some(
        (delivery) =>
          delivery.json?.data?.attributes?.event === kind && JSON.parse(delivery.json.data.attributes.payload).data.id === machine.id,
      );
    // A minute from its creation, and then at most one sweep interval and the deliveries.
    await receiver.waitFor((deliveries) => about('machine.heartbeat.dead')(deliveries) && about('machine.deleted')(deliveries));
    const events = receiver.deliveries
      .map((delivery) => delivery.json?.data?.attributes)
      .filter((event) => event && JSON.parse(event.payload).data.id === machine.id);
    expect(events.map((event) => event.event).sort()).toEqual(['machine.created', 'machine.deleted', 'machine.heartbeat.dead']);
    // Announced before it was removed (deliveries may arrive in either order).
    const createdOf = (kind: string) => Date.parse(events.find((event) => event.event === kind).created);
    expect(createdOf('machine.heartbeat.dead')).toBeLessThanOrEqual(createdOf('machine.deleted'));
    expect(createdOf('machine.heartbeat.dead')).toBeGreaterThanOrEqual(Date.parse(machine.attributes.created) + MINUTE);
    expect((await l.api('GET', `/machines/${machine.id}`)).status).toBe(404);
  });

  it('a ping answers 200 with lastHeartbeat now, nextHeartbeat a duration later and ALIVE, puts the machine in the due index and emits machine.heartbeat.ping', async () => {
    const { machine } = await heartbeatGraph();
    expect(machine.attributes).toMatchObject({
      requireHeartbeat: false,
      heartbeatStatus: 'NOT_STARTED',
      heartbeatDuration: 600,
      lastHeartbeat: null,
      nextHeartbeat: null,
    });
    expect((await machineItem(machine.id))?.DUESK).toBeUndefined();
    const before = Date.now();
    const pinged = attributesOf(await ping(machine.id));
    const after = Date.now();
    expect(pinged).toMatchObject({ requireHeartbeat: true, heartbeatStatus: 'ALIVE', heartbeatDuration: 600 });
    expectWithin(pinged.lastHeartbeat, before, after);
    expect(Date.parse(pinged.nextHeartbeat)).toBe(Date.parse(pinged.lastHeartbeat) + 600 * SECOND);
    expect(pinged.updated).toBe(pinged.lastHeartbeat);
    expect((await machineItem(machine.id))?.DUESK).toBe(pinged.nextHeartbeat);
    expect(await markerHeartbeat(machine)).toBe(pinged.lastHeartbeat);
    expect(attributesOf(await l.api('GET', `/machines/${machine.id}`))).toMatchObject({
      lastHeartbeat: pinged.lastHeartbeat,
      heartbeatStatus: 'ALIVE',
    });
    const events = await eventsAbout('machine.heartbeat.ping', machine.id);
    expect(events).toHaveLength(1);
    expect(events[0].data.attributes).toMatchObject({ lastHeartbeat: pinged.lastHeartbeat, heartbeatStatus: 'ALIVE' });

    // Each ping moves the machine to its new deadline.
    const again = attributesOf(await ping(machine.id));
    expect(Date.parse(again.lastHeartbeat)).toBeGreaterThanOrEqual(Date.parse(pinged.lastHeartbeat));
    expect((await machineItem(machine.id))?.DUESK).toBe(again.nextHeartbeat);
    expect(await eventsAbout('machine.heartbeat.ping', machine.id)).toHaveLength(2);
  });

  it('answers alike under the older paths ping-heartbeat and reset-heartbeat, and by fingerprint', async () => {
    const { machine, license } = await heartbeatGraph();
    const pinged = attributesOf(await ping(machine.id, {}, 'ping-heartbeat'));
    expect(pinged).toMatchObject({ heartbeatStatus: 'ALIVE' });
    expect(await eventsAbout('machine.heartbeat.ping', machine.id)).toHaveLength(1);
    expect(attributesOf(await reset(machine.id, {}, 'reset-heartbeat'))).toMatchObject({
      heartbeatStatus: 'NOT_STARTED',
      lastHeartbeat: null,
    });
    expect(await eventsAbout('machine.heartbeat.reset', machine.id)).toHaveLength(1);

    // By fingerprint, for an administrator and for the license itself (its own machines).
    const fingerprint = machine.attributes.fingerprint as string;
    const byFingerprint = await ping(fingerprint);
    expect(attributesOf(byFingerprint)).toMatchObject({ heartbeatStatus: 'ALIVE' });
    expect(byFingerprint.body.data.id).toBe(machine.id);
    const asLicense = await ping(fingerprint, { authorization: `License ${license.attributes.key}` }, 'ping-heartbeat');
    expect(asLicense.body.data.id).toBe(machine.id);
    expect(attributesOf(await reset(fingerprint))).toMatchObject({ lastHeartbeat: null });
    expectCode(await ping(`no-such-${randomUUID()}`), 404);
  });

  it('may be pinged by administrators, environments, its product, its license (key or token) and the owning user; reset by the first three only', async () => {
    const owner = await newUser(account);
    const stranger = await newUser(account);
    const { product, license, machine } = await heartbeatGraph({}, {}, owner.id);
    const productToken = await l.productToken(product.id);
    const licenseToken = await l.licenseToken(license.id);
    const bearers: [string, Options, number, number][] = [
      ['admin', {}, 200, 200],
      ['product', { token: productToken }, 200, 200],
      ['license token', { token: licenseToken }, 200, 403],
      ['license key', { authorization: `License ${license.attributes.key}` }, 200, 403],
      ['owner', { token: owner.token }, 200, 403],
      ['another user', { token: stranger.token }, 404, 404],
    ];
    for (const [bearer, options, pingStatus, resetStatus] of bearers) {
      expect((await ping(machine.id, options)).status, `${bearer} pings`).toBe(pingStatus);
      expect((await reset(machine.id, options)).status, `${bearer} resets`).toBe(resetStatus);
    }
    expectCode(await ping(machine.id, { token: '' }), 401);

    // An environment's token, on a machine of its environment.
    const environment = await newEnvironment(account, 'ISOLATED');
    const token = await environmentToken(account, environment.code);
    const inEnvironment = await l.graph({ token, environment: environment.code });
    expect(attributesOf(await ping(inEnvironment.machine.id, { token, environment: environment.code }))).toMatchObject({
      heartbeatStatus: 'ALIVE',
    });
    expect(attributesOf(await reset(inEnvironment.machine.id, { token, environment: environment.code }))).toMatchObject({
      lastHeartbeat: null,
    });
  });

  it('on a protected license, the owning user may neither ping nor reset; the license and its product still ping', async () => {
    const owner = await newUser(account);
    const { product, policy } = await heartbeatGraph();
    const license = await l.license(policy.id, { protected: true }, { owner: owner.id });
    const machine = await l.machine(license.id);
    expectCode(await ping(machine.id, { token: owner.token }), 403);
    expectCode(await reset(machine.id, { token: owner.token }), 403);
    expect((await ping(machine.id, { authorization: `License ${license.attributes.key}` })).status).toBe(200);
    expect((await ping(machine.id, { token: await l.productToken(product.id) })).status).toBe(200);
    expect(await eventsAbout('machine.heartbeat.ping', machine.id)).toHaveLength(2);
  });

  it('a reset forgets the heartbeat: NOT_STARTED, out of the due index, machine.heartbeat.reset', async () => {
    const { machine } = await heartbeatGraph();
    attributesOf(await ping(machine.id));
    expect((await machineItem(machine.id))?.DUESK).toBeDefined();
    const before = Date.now();
    const reply = await reset(machine.id);
    const after = Date.now();
    const attributes = attributesOf(reply);
    expect(attributes).toMatchObject({ requireHeartbeat: false, heartbeatStatus: 'NOT_STARTED', lastHeartbeat: null, nextHeartbeat: null });
    expectWithin(attributes.updated, before, after);
    const item = await machineItem(machine.id);
    expect([item?.DUEPK, item?.DUESK]).toEqual([undefined, undefined]);
    expect(await markerHeartbeat(machine)).toBeNull();
    expect(await eventsAbout('machine.heartbeat.reset', machine.id)).toHaveLength(1);
  });

  it('a reset under a policy requiring heartbeats counts from the creation again: due when that runs out (a minute ahead at the earliest), and its death is announced', async () => {
    const { machine } = await heartbeatGraph({ requireHeartbeat: true, heartbeatDuration: 3600, heartbeatCullStrategy: 'KEEP_DEAD' });
    // Young: not started until an hour after its creation, and due then.
    const young = attributesOf(await reset(machine.id));
    expect(young).toMatchObject({ requireHeartbeat: true, heartbeatStatus: 'NOT_STARTED', lastHeartbeat: null });
    expect((await machineItem(machine.id))?.DUESK).toBe(new Date(Date.parse(machine.attributes.created) + 60 * MINUTE).toISOString());

    // Older than its duration: dead at once, due a minute on, and announced when found due.
    await setMachine(machine.id, { created: Date.now() - 2 * 60 * MINUTE });
    const before = Date.now();
    const old = attributesOf(await reset(machine.id));
    const after = Date.now();
    expect(old).toMatchObject({ heartbeatStatus: 'DEAD', lastHeartbeat: null });
    const due = await dueOf(machine.id);
    expectWithin(due.due, before + MINUTE, after + MINUTE);
    await machineDue(due, Date.parse(due.due));
    expect(await eventsAbout('machine.heartbeat.dead', machine.id)).toHaveLength(1);
    // KEEP_DEAD: announced, kept, out of the index.
    expect((await l.api('GET', `/machines/${machine.id}`)).status).toBe(200);
    expect((await machineItem(machine.id))?.DUESK).toBeUndefined();
  });

  it('a dead machine’s ping is 422 MACHINE_HEARTBEAT_DEAD and changes nothing, under NO_REVIVE', async () => {
    const { machine } = await heartbeatGraph(everyMinute());
    const lastHeartbeat = Date.now() - 2 * MINUTE;
    await setMachine(machine.id, { lastHeartbeat, due: farAhead() });
    expect(attributesOf(await l.api('GET', `/machines/${machine.id}`))).toMatchObject({ heartbeatStatus: 'DEAD' });
    const error = expectCode(await ping(machine.id), 422, 'MACHINE_HEARTBEAT_DEAD');
    expect(error.source).toEqual({ pointer: '/data/attributes/heartbeatStatus' });
    expectCode(await ping(machine.id, {}, 'ping-heartbeat'), 422, 'MACHINE_HEARTBEAT_DEAD');
    expect(attributesOf(await l.api('GET', `/machines/${machine.id}`)).lastHeartbeat).toBe(new Date(lastHeartbeat).toISOString());
    expect(await eventsAbout('machine.heartbeat.ping', machine.id)).toEqual([]);
    expect(await eventsAbout('machine.heartbeat.resurrected', machine.id)).toEqual([]);
  });

  it('a dead machine pinged within its resurrection window is RESURRECTED, its death may be announced again; after the window it stays dead', async () => {
    const { machine } = await heartbeatGraph(everyMinute({ heartbeatResurrectionStrategy: '5_MINUTE_REVIVE' }));
    // Dead two minutes ago, its death announced.
    await setMachine(machine.id, {
      lastHeartbeat: Date.now() - 3 * MINUTE,
      due: farAhead(),
      heartbeatDeathAnnounced: new Date().toISOString(),
    });
    const before = Date.now();
    const revived = attributesOf(await ping(machine.id));
    expect(revived).toMatchObject({ heartbeatStatus: 'RESURRECTED' });
    expectWithin(revived.lastHeartbeat, before, Date.now());
    const item = await machineItem(machine.id);
    expect(item?.heartbeatDeathAnnounced).toBeUndefined();
    expect(item?.DUESK).toBe(revived.nextHeartbeat);
    expect(attributesOf(await l.api('GET', `/machines/${machine.id}`))).toMatchObject({ heartbeatStatus: 'ALIVE' });
    const events = await eventsAbout('machine.heartbeat.resurrected', machine.id);
    expect(events.map((event) => event.data.attributes.heartbeatStatus)).toEqual(['RESURRECTED']);
    expect(await eventsAbout('machine.heartbeat.ping', machine.id)).toEqual([]);

    // Dead six minutes ago: past the window.
    await setMachine(machine.id, { lastHeartbeat: Date.now() - 7 * MINUTE, due: farAhead() });
    expectCode(await ping(machine.id), 422, 'MACHINE_HEARTBEAT_DEAD');
  });

  it('webhook endpoints may subscribe to the heartbeat events (and to no pong, which is not sent)', async () => {
    // In an environment of its own: the file's other events go to the global environment's endpoint alone.
    const { code: environment } = await newEnvironment(account, 'ISOLATED');
    const subscribe = (subscriptions: string[]) =>
      l.api('POST', '/webhook-endpoints', { environment, body: doc('webhook-endpoints', { url: receiver.url, subscriptions }) });
    const kinds = ['machine.heartbeat.ping', 'machine.heartbeat.reset', 'machine.heartbeat.resurrected', 'machine.heartbeat.dead'];
    const endpoint = await subscribe(kinds);
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    expect(endpoint.body.data.attributes.subscriptions).toEqual(kinds);
    expectCode(await subscribe(['machine.heartbeat.pong']), 422, 'SUBSCRIPTIONS_INVALID');
  });

  it('ALWAYS_REVIVE revives a machine dead for a day', async () => {
    const { machine } = await heartbeatGraph(
      everyMinute({ heartbeatResurrectionStrategy: 'ALWAYS_REVIVE', heartbeatCullStrategy: 'KEEP_DEAD' }),
    );
    await setMachine(machine.id, { lastHeartbeat: Date.now() - 86_400_000, due: farAhead() });
    expect(attributesOf(await ping(machine.id))).toMatchObject({ heartbeatStatus: 'RESURRECTED' });
    expect(await eventsAbout('machine.heartbeat.resurrected', machine.id)).toHaveLength(1);
  });
});

describe.concurrent('the sweeper’s judgement of a machine (its handler, called at a time ahead)', () => {
  it('announces a death once, called twice or at once; under KEEP_DEAD the machine stays, out of the due index', async () => {
    const { machine } = await heartbeatGraph(everyMinute({ heartbeatCullStrategy: 'KEEP_DEAD' }));
    const at = farAhead();
    await setMachine(machine.id, { lastHeartbeat: at - 2 * MINUTE, due: at });
    const due = await dueOf(machine.id);
    await Promise.all([machineDue(due, at + SECOND), machineDue(due, at + SECOND), machineDue(due, at + SECOND)]);
    await machineDue(due, at + 2 * SECOND);
    const item = await machineItem(machine.id);
    expect(item?.heartbeatDeathAnnounced).toBe(new Date(at + SECOND).toISOString());
    expect([item?.DUEPK, item?.DUESK]).toEqual([undefined, undefined]);
    expect(await eventsAbout('machine.heartbeat.dead', machine.id)).toHaveLength(1);
    expect((await l.api('GET', `/machines/${machine.id}`)).status).toBe(200);
    await localStackIdle();
    expect(await eventsAbout('machine.deleted', machine.id)).toEqual([]);
  });

  it('under DEACTIVATE_DEAD waits for the resurrection window, then removes the machine with its components and frees its seat', async () => {
    const { license, machine } = await heartbeatGraph(everyMinute({ heartbeatResurrectionStrategy: '1_MINUTE_REVIVE', maxMachines: 1 }));
    const component = await l.component(machine.id);
    const activate = () =>
      l.api('POST', '/machines', {
        body: doc('machines', { fingerprint: `fp-${randomUUID()}` }, { license: ref('licenses', license.id) }),
      });
    expectCode(await activate(), 422, 'MACHINE_LIMIT_EXCEEDED');

    // Dead at `deadline`; within the window a minute after it, it is announced and due again at the window's end.
    const deadline = farAhead();
    await setMachine(machine.id, { lastHeartbeat: deadline - MINUTE, due: deadline });
    await machineDue(await dueOf(machine.id), deadline + 30 * SECOND);
    const waiting = await dueOf(machine.id);
    expect(waiting.due).toBe(new Date(deadline + MINUTE).toISOString());
    expect(await eventsAbout('machine.heartbeat.dead', machine.id)).toHaveLength(1);
    expect((await l.api('GET', `/machines/${machine.id}`)).status).toBe(200);

    // The window closed: culled, as its deactivation removes it.
    await machineDue(waiting, deadline + MINUTE);
    expect((await l.api('GET', `/machines/${machine.id}`)).status).toBe(404);
    expect((await l.api('GET', `/components/${component.id}`)).status).toBe(404);
    expect(await eventsAbout('machine.heartbeat.dead', machine.id)).toHaveLength(1);
    const deleted = await eventsAbout('machine.deleted', machine.id);
    expect(deleted).toHaveLength(1);
    expect(deleted[0].data.id).toBe(machine.id);
    expect((await activate()).status).toBe(201);

    // Found again (a sweep that read it before): nothing more.
    await machineDue(waiting, deadline + 2 * MINUTE);
    expect(await eventsAbout('machine.deleted', machine.id)).toHaveLength(1);
  });

  it('a cull interrupted after it started: pings and resets are refused, and the sweep that finds it next finishes it', async () => {
    const { machine } = await heartbeatGraph(everyMinute());
    const at = farAhead();
    await setMachine(machine.id, { lastHeartbeat: at - 2 * MINUTE, due: at });
    await db().send(
      new UpdateCommand({
        TableName: getTable(),
        Key: recordKey(account.id, 'machines', machine.id),
        UpdateExpression: 'SET heartbeatCullStarted = :at, heartbeatDeathAnnounced = :at',
        ExpressionAttributeValues: { ':at': new Date(at).toISOString() },
      }),
    );
    expectCode(await ping(machine.id), 422, 'MACHINE_HEARTBEAT_DEAD');
    expectCode(await reset(machine.id), 422, 'MACHINE_HEARTBEAT_DEAD');
    await machineDue(await dueOf(machine.id), at + SECOND);
    expect((await l.api('GET', `/machines/${machine.id}`)).status).toBe(404);
    expect(await eventsAbout('machine.deleted', machine.id)).toHaveLength(1);
    expect(await eventsAbout('machine.heartbeat.dead', machine.id)).toEqual([]);
  });

  it('a machine pinged since it fell due is left alone', async () => {
    const { machine } = await heartbeatGraph(everyMinute());
    const at = farAhead();
    await setMachine(machine.id, { lastHeartbeat: at - 2 * MINUTE, due: at });
    const due = await dueOf(machine.id);
    attributesOf(await ping(machine.id));
    const moved = await machineItem(machine.id);
    await machineDue(due, at + SECOND);
    expect((await machineItem(machine.id))?.DUESK).toBe(moved?.DUESK);
    expect(await eventsAbout('machine.heartbeat.dead', machine.id)).toEqual([]);
  });

  it('a ping racing a cull: either the ping lands and the machine lives, or the cull does and the ping is 422 (404 once the machine is gone)', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const { machine } = await heartbeatGraph(everyMinute());
        attributesOf(await ping(machine.id));
        const due = await dueOf(machine.id);
        // Ten minutes on, long past its deadline and (NO_REVIVE) its window.
        const [pinged] = await Promise.all([ping(machine.id), machineDue(due, Date.parse(due.due) + 10 * MINUTE)]);
        const exists = (await l.api('GET', `/machines/${machine.id}`)).status === 200;
        const dead = await eventsAbout('machine.heartbeat.dead', machine.id);
        const deleted = await eventsAbout('machine.deleted', machine.id);
        if (pinged.status === 200) {
          expect(exists).toBe(true);
          expect([dead, deleted]).toEqual([[], []]);
          expect((await machineItem(machine.id))?.DUESK).toBe(pinged.body.data.attributes.nextHeartbeat);
        } else {
          // The cull judged the machine dead while the ping ran (422), or had removed it before the ping read it (404).
          if (pinged.status === 404) expectCode(pinged, 404, 'NOT_FOUND');
          else expectCode(pinged, 422, 'MACHINE_HEARTBEAT_DEAD');
          expect(exists).toBe(false);
          expect([dead.length, deleted.length]).toEqual([1, 1]);
        }
        return pinged.status;
      }),
    );
    expect(outcomes.every((status) => status === 200 || status === 422 || status === 404)).toBe(true);
  });
});

describe('a policy that starts requiring heartbeats', () => {
  it('walks the machines already activated into the due index, at their deadlines as it now judges them, over several sweeps; a pinged one keeps its own', async () => {
    const product = await l.product();
    const policy = await l.policy(product.id);
    // More licenses than one sweep walks (WALK_LICENSES), so the walk goes on in a second sweep.
    const licenses = [];
    for (let i = 0; i < WALK_LICENSES + 2; i++) licenses.push(await l.license(policy.id));
    const first = await l.machine((licenses[0] as { id: string }).id);
    const last = await l.machine((licenses.at(-1) as { id: string }).id);
    const pinged = await l.machine((licenses[1] as { id: string }).id);
    expect((await ping(pinged.id)).status).toBe(200);
    const pingedDue = (await machineItem(pinged.id))?.DUESK;
    expect((await machineItem(first.id))?.DUESK).toBeUndefined();

    const patched = await l.api('PATCH', `/policies/${policy.id}`, {
      body: doc('policies', { requireHeartbeat: true, heartbeatDuration: 60 }),
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    // The stack's sweeper (every 2 s here) walks the policy, then takes it out of the index.
    const policyKey = recordKey(account.id, 'policies', policy.id);
    await until(
      async () => (await getItem(policyKey))?.DUESK === undefined,
      () => 'the walk to end',
    );
    expect((await getItem(policyKey))?.heartbeatWalk).toBeUndefined();
    for (const machine of [first, last]) {
      const item = await machineItem(machine.id);
      // Unless the stack's sweeper already judged it (a minute later at the earliest), it is due at its creation plus 60 s.
      expect(item?.DUESK).toBe(new Date(Date.parse(item?.created as string) + 60 * SECOND).toISOString());
    }
    expect((await machineItem(pinged.id))?.DUESK).toBe(pingedDue);
  });
});
