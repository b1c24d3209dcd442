/**
 * A property of entitlement attachments, over HTTP against the local stack: programs of attaches,
 * detaches, entitlement deletes and holder deletes (with creates to keep the world going), drawn
 * from a seed, most steps sent alone and some side by side.
 *
 * - A step sent alone answers what the model of the world says, status and code: so never 409.
 * - Steps sent side by side answer no 5xx; the model is then read back from the table.
 * - After each program, every holder's set holds what the model says and counts its entries,
 *   names only entitlements that exist, and each list answers the holder's effective set; every
 *   holder still takes a new entitlement in one request; the table's invariants hold (pointers
 *   of attachments, no tombstone of an entitlement that exists).
 *
 * PROPERTY_SEED and PROPERTY_RUNS draw other or more programs (docs/testing.md).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { attachmentsOf } from '#shared/resources/entitlements/attachments.ts';
import { entitlementSetKey, recordKey } from '#shared/store/keys.ts';
import { getItem } from '#shared/store/records.ts';
import { newAccount, type Reply, type TestAccount } from '../support/client.ts';
import { checkConsistency } from '../support/consistency.ts';
import { doc, ids, licensing } from '../support/licensing.ts';

const SEED = Number(process.env.PROPERTY_SEED ?? 20261128);
const RUNS = Number(process.env.PROPERTY_RUNS ?? 4);
const STEPS = 24;

let account: TestAccount;
let l: ReturnType<typeof licensing>;

beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
});

/** A small seeded generator (mulberry32): the same seed draws the same program. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const below = (n: number) => Math.floor(next() * n);
  const pick = <T>(values: readonly T[]): T => values[below(values.length)] as T;
  return { next, below, pick };
}

type Kind = 'policies' | 'licenses';
interface Holder {
  kind: Kind;
  id: string;
  /** A license's policy. */
  policyId?: string;
}

/** What the world holds: the entitlements that exist, and each live holder's own attachments. */
interface Model {
  entitlements: Set<string>;
  own: Map<string, Set<string>>;
}

type Step =
  | { op: 'attach' | 'detach'; holder: Holder; entitlements: string[] }
  | { op: 'delete-entitlement'; entitlement: string }
  | { op: 'delete-holder'; holder: Holder }
  | { op: 'create-entitlement' }
  | { op: 'create-holder'; kind: Kind; policyId?: string };

interface Expected {
  status: number;
  code?: string;
}

const path = (holder: Holder) => `/${holder.kind}/${holder.id}`;
const named = (entitlementIds: string[]) => ({ data: entitlementIds.map((id) => ({ type: 'entitlements', id })) });

/** A holder's effective set in the model: a policy's own, a license's own and its policy's. */
function effective(model: Model, holder: Holder): Set<string> {
  const own = model.own.get(holder.id) ?? new Set();
  if (holder.kind === 'policies') return own;
  return new Set([...own, ...(model.own.get(holder.policyId ?? '') ?? [])]);
}

/** What a step sent alone answers, by the model (shared/resources/entitlements/holders.ts, docs/rules.md §25.2). */
function expectedOf(model: Model, step: Step): Expected {
  switch (step.op) {
    case 'attach': {
      const own = model.own.get(step.holder.id);
      if (!own) return { status: 404, code: 'NOT_FOUND' };
      const throughPolicy = step.holder.kind === 'licenses' ? (model.own.get(step.holder.policyId ?? '') ?? new Set()) : new Set();
      const seen: string[] = [];
      for (const id of step.entitlements) {
        if (!model.entitlements.has(id)) return { status: 422, code: 'ENTITLEMENT_NOT_FOUND' };
        if (own.has(id) || seen.includes(id)) return { status: 422, code: 'ENTITLEMENT_TAKEN' };
        if (throughPolicy.has(id)) return { status: 422, code: 'ENTITLEMENT_CONFLICT' };
        seen.push(id);
      }
      return { status: 200 };
    }
    case 'detach': {
      const own = model.own.get(step.holder.id);
      if (!own) return { status: 404, code: 'NOT_FOUND' };
      const throughPolicy = step.holder.kind === 'licenses' ? (model.own.get(step.holder.policyId ?? '') ?? new Set()) : new Set();
      if (step.entitlements.some((id) => throughPolicy.has(id))) return { status: 403 };
      const seen: string[] = [];
      for (const id of step.entitlements) {
        if (!own.has(id) || seen.includes(id)) return { status: 422, code: 'ENTITLEMENT_NOT_ATTACHED' };
        seen.push(id);
      }
      return { status: 204 };
    }
    case 'delete-entitlement':
      return model.entitlements.has(step.entitlement) ? { status: 204 } : { status: 404, code: 'NOT_FOUND' };
    case 'delete-holder':
      return model.own.has(step.holder.id) ? { status: 204 } : { status: 404, code: 'NOT_FOUND' };
    case 'create-entitlement':
    case 'create-holder':
      return { status: 201 };
  }
}

/** The world a program plays in: its holders (live or not) and its entitlements (existing or not). */
interface World {
  productId: string;
  holders: Holder[];
  entitlements: string[];
}

async function newEntitlement(world: World): Promise<Reply> {
  const code = `f-${Math.random().toString(36).slice(2, 10)}`;
  const reply = await l.api('POST', '/entitlements', { body: doc('entitlements', { name: code, code }) });
  if (reply.status === 201) world.entitlements.push(reply.body.data.id);
  return reply;
}

async function newHolder(world: World, kind: Kind, policyId?: string): Promise<Reply> {
  const body =
    kind === 'policies'
      ? doc('policies', { name: 'Plan' }, { product: { data: { type: 'products', id: world.productId } } })
      : doc('licenses', {}, { policy: { data: { type: 'policies', id: policyId } } });
  const reply = await l.api('POST', `/${kind}`, { body });
  if (reply.status === 201) world.holders.push({ kind, id: reply.body.data.id, policyId });
  return reply;
}

/** Sends one step; the world learns of what a create made. */
function send(world: World, step: Step): Promise<Reply> {
  switch (step.op) {
    case 'attach':
      return l.api('POST', `${path(step.holder)}/entitlements`, { body: named(step.entitlements) });
    case 'detach':
      return l.api('DELETE', `${path(step.holder)}/entitlements`, { body: named(step.entitlements) });
    case 'delete-entitlement':
      return l.api('DELETE', `/entitlements/${step.entitlement}`);
    case 'delete-holder':
      return l.api('DELETE', path(step.holder));
    case 'create-entitlement':
      return newEntitlement(world);
    case 'create-holder':
      return newHolder(world, step.kind, step.policyId);
  }
}

/** What a step sent alone does to the model, once it answered as expected and succeeded. */
function apply(model: Model, world: World, step: Step): void {
  switch (step.op) {
    case 'attach':
      for (const id of step.entitlements) model.own.get(step.holder.id)?.add(id);
      return;
    case 'detach':
      for (const id of step.entitlements) model.own.get(step.holder.id)?.delete(id);
      return;
    case 'delete-entitlement':
      model.entitlements.delete(step.entitlement);
      for (const own of model.own.values()) own.delete(step.entitlement);
      return;
    case 'delete-holder':
      model.own.delete(step.holder.id);
      // A policy's licenses go with it.
      for (const holder of world.holders) if (holder.policyId === step.holder.id) model.own.delete(holder.id);
      return;
    case 'create-entitlement':
      model.entitlements.add(world.entitlements.at(-1) as string);
      return;
    case 'create-holder':
      model.own.set((world.holders.at(-1) as Holder).id, new Set());
      return;
  }
}

/** The model as the table holds it (strongly consistent reads), after steps sent side by side. */
async function readBack(world: World): Promise<Model> {
  const entitlements = new Set<string>();
  for (const id of world.entitlements) if (await getItem(recordKey(account.id, 'entitlements', id))) entitlements.add(id);
  const own = new Map<string, Set<string>>();
  for (const holder of world.holders) {
    if (!(await getItem(recordKey(account.id, holder.kind, holder.id)))) continue;
    const attached = await attachmentsOf({ accountId: account.id, holder: holder.kind, holderId: holder.id });
    own.set(holder.id, new Set(attached.map((a) => a.entitlementId)));
  }
  return { entitlements, own };
}

/** Draws one step over the world as the model knows it: mostly live targets, sometimes gone ones. */
function draw(random: ReturnType<typeof generator>, world: World, model: Model, sideBySide: boolean): Step {
  const live = world.holders.filter((holder) => model.own.has(holder.id));
  const holder = live.length > 0 && random.next() < 0.9 ? random.pick(live) : random.pick(world.holders);
  const existing = world.entitlements.filter((id) => model.entitlements.has(id));
  const some = () => {
    const own = [...(model.own.get(holder.id) ?? [])];
    return Array.from({ length: 1 + random.below(3) }, () =>
      own.length > 0 && random.next() < 0.5
        ? random.pick(own)
        : random.pick(existing.length > 0 && random.next() < 0.9 ? existing : world.entitlements),
    );
  };
  const roll = random.next();
  if (roll < 0.4) return { op: 'attach', holder, entitlements: some() };
  if (roll < 0.6) return { op: 'detach', holder, entitlements: some() };
  if (roll < 0.72) return { op: 'delete-entitlement', entitlement: random.pick(existing.length > 0 ? existing : world.entitlements) };
  if (roll < 0.78) return { op: 'delete-holder', holder };
  if (sideBySide || roll < 0.9) return { op: 'create-entitlement' };
  const policies = world.holders.filter((h) => h.kind === 'policies' && model.own.has(h.id));
  if (policies.length === 0 || random.next() < 0.3) return { op: 'create-holder', kind: 'policies' };
  return { op: 'create-holder', kind: 'licenses', policyId: random.pick(policies).id };
}

const describeStep = (step: Step) => JSON.stringify(step);

/** Runs one program, checking each answer and then the world; a failure's message has the seed and the steps. */
async function runProgram(seed: number): Promise<void> {
  const random = generator(seed);
  const product = await l.product();
  const world: World = { productId: product.id, holders: [], entitlements: [] };
  let model: Model = { entitlements: new Set(), own: new Map() };
  for (const step of [
    ...Array.from({ length: 5 }, () => ({ op: 'create-entitlement' }) as Step),
    { op: 'create-holder', kind: 'policies' } as Step,
    { op: 'create-holder', kind: 'policies' } as Step,
  ]) {
    expect((await send(world, step)).status).toBe(201);
    apply(model, world, step);
  }
  const [first, second] = world.holders as [Holder, Holder];
  for (const policyId of [first.id, first.id, second.id]) {
    const step: Step = { op: 'create-holder', kind: 'licenses', policyId };
    expect((await send(world, step)).status).toBe(201);
    apply(model, world, step);
  }

  const log: string[] = [];
  for (let index = 0; index < STEPS; index++) {
    if (random.next() < 0.2) {
      // Side by side: any answer but a 5xx, then the model is what the table holds.
      const steps = Array.from({ length: 2 + random.below(3) }, () => draw(random, world, model, true));
      const replies = await Promise.all(steps.map((step) => send(world, step)));
      log.push(`together: ${steps.map(describeStep).join(' | ')} → ${replies.map((r) => r.status).join(', ')}`);
      for (const reply of replies) expect(reply.status, `seed ${seed}\n${log.join('\n')}\n${JSON.stringify(reply.body)}`).toBeLessThan(500);
      model = await readBack(world);
      continue;
    }
    const step = draw(random, world, model, false);
    const expected = expectedOf(model, step);
    const reply = await send(world, step);
    log.push(`${describeStep(step)} → ${reply.status}`);
    const got = { status: reply.status, ...(expected.code ? { code: reply.body?.errors?.[0]?.code } : {}) };
    expect(got, `seed ${seed}\n${log.join('\n')}\n${JSON.stringify(reply.body)}`).toEqual(expected);
    if (reply.status < 300) apply(model, world, step);
  }
  await expectWorldAsModelled(world, model, `seed ${seed}\n${log.join('\n')}`);
}

/** Every live holder's set and list are the model's; every holder takes one more. */
async function expectWorldAsModelled(world: World, model: Model, context: string) {
  for (const holder of world.holders.filter((h) => model.own.has(h.id))) {
    const set = await getItem(entitlementSetKey(account.id, holder.kind, holder.id));
    const attached = await attachmentsOf({ accountId: account.id, holder: holder.kind, holderId: holder.id });
    expect(attached.map((a) => a.entitlementId).sort(), `${context}\nthe set of ${path(holder)}`).toEqual(
      [...(model.own.get(holder.id) ?? [])].sort(),
    );
    expect(Number(set?.n ?? 0), `${context}\nthe count of ${path(holder)}`).toBe(attached.length);
    const listed = await l.api('GET', `${path(holder)}/entitlements?page[size]=100`);
    expect(ids(listed).sort(), `${context}\nthe list of ${path(holder)}`).toEqual([...effective(model, holder)].sort());
  }
  for (const holder of world.holders.filter((h) => model.own.has(h.id))) {
    const fresh = await newEntitlement(world);
    const reply = await l.api('POST', `${path(holder)}/entitlements`, { body: named([fresh.body.data.id]) });
    expect(reply.status, `${context}\none more for ${path(holder)}: ${JSON.stringify(reply.body)}`).toBe(200);
  }
}

describe('entitlement attachments, under programs drawn from a seed', () => {
  for (let run = 0; run < RUNS; run++) {
    it(`program ${run + 1} of ${RUNS} (seed ${SEED + run})`, () => runProgram(SEED + run), 120_000);
  }

  it("leaves the account's part of the table consistent", async () => {
    expect(await checkConsistency({ accountId: account.id })).toEqual([]);
  });
});
