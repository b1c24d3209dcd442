/**
 * Round trips: the DynamoDB requests (and capacity units) each API operation makes, counted by a
 * middleware on the store's client while one real HTTP request runs through the in-process
 * API, with 1,000 and then 50,000 records in the account.
 */
import { randomUUID } from 'node:crypto';
import { getItem } from '#shared/store/records.ts';
import { recordKey } from '#shared/store/keys.ts';
import type { Measurement, Section } from './report.ts';
import {
  benchAccount,
  client,
  componentBody,
  componentItems,
  doc,
  fmt,
  installMeter,
  licensingGraph,
  metered,
  must,
  seed,
  userItems,
  type BenchContext,
  type Client,
  type Tally,
} from './support.ts';

type Kind = 'retrieve' | 'create' | 'update' | 'delete' | 'list' | 'action';
const BUDGET: Record<Kind, number | undefined> = { retrieve: 2, create: 3, update: 3, delete: 3, list: 3, action: undefined };

interface Probe {
  operation: string;
  kind: Kind;
  tally: Tally;
  status: number;
}

const ref = (type: string, id: string) => ({ data: { type, id } });

/** Every kind of operation on users, licenses, machines and components, plus a validation. */
async function probe(call: Client, graph: Awaited<ReturnType<typeof licensingGraph>>): Promise<Probe[]> {
  const probes: Probe[] = [];
  const measure = async (operation: string, kind: Kind, request: () => Promise<{ status: number; body: any }>) => {
    const { result, tally } = await metered(request);
    if (result.status >= 300) throw new Error(`${operation}: ${result.status} ${JSON.stringify(result.body)}`);
    probes.push({ operation, kind, tally, status: result.status });
    return result.body?.data;
  };

  const user = await measure('users.create', 'create', () => call('POST', '/users', doc('users', { email: `${randomUUID()}@bench.example` })));
  await measure('users.retrieve', 'retrieve', () => call('GET', `/users/${user.id}`));
  await measure('users.update', 'update', () => call('PATCH', `/users/${user.id}`, { data: { type: 'users', id: user.id, attributes: { firstName: 'Ada' } } }));
  await measure('users.list', 'list', () => call('GET', '/users?page[size]=10&page[number]=1'));
  await measure('users.delete', 'delete', () => call('DELETE', `/users/${user.id}`));

  const license = await measure('licenses.create', 'create', () => call('POST', '/licenses', doc('licenses', {}, { policy: ref('policies', graph.policy.id) })));
  await measure('licenses.retrieve', 'retrieve', () => call('GET', `/licenses/${license.id}`));
  await measure('licenses.update', 'update', () => call('PATCH', `/licenses/${license.id}`, { data: { type: 'licenses', id: license.id, attributes: { name: 'Renamed' } } }));
  await measure('licenses.list', 'list', () => call('GET', '/licenses?page[size]=10&page[number]=1'));

  const machine = await measure('machines.create', 'create', () =>
    call('POST', '/machines', doc('machines', { fingerprint: `fp-${randomUUID()}` }, { license: ref('licenses', license.id) })),
  );
  await measure('machines.retrieve', 'retrieve', () => call('GET', `/machines/${machine.id}`));
  await measure('machines.update', 'update', () => call('PATCH', `/machines/${machine.id}`, { data: { type: 'machines', id: machine.id, attributes: { name: 'Renamed' } } }));
  await measure('machines.list', 'list', () => call('GET', '/machines?page[size]=10&page[number]=1'));

  const parts = [`a-${randomUUID()}`, `b-${randomUUID()}`, `c-${randomUUID()}`];
  const component = await measure('components.create', 'create', () => call('POST', '/components', componentBody(machine.id, parts[0])));
  for (const part of parts.slice(1)) await must(call('POST', '/components', componentBody(machine.id, part)), 'component');
  await measure('components.retrieve', 'retrieve', () => call('GET', `/components/${component.id}`));
  await measure('components.update', 'update', () => call('PATCH', `/components/${component.id}`, { data: { type: 'components', id: component.id, attributes: { name: 'Renamed' } } }));
  await measure('components.list', 'list', () => call('GET', '/components?page[size]=10&page[number]=1'));
  await measure('components.list ?machine= (seeded machine)', 'list', () => call('GET', `/components?machine=${graph.machine.id}&page[size]=10&page[number]=1`));
  await measure('licenses.validateKey (fingerprint + 3 components)', 'action', () =>
    call('POST', '/licenses/actions/validate-key', { meta: { key: license.attributes.key, scope: { fingerprint: machine.attributes.fingerprint, components: parts } } }, null),
  );
  await measure('components.delete', 'delete', () => call('DELETE', `/components/${component.id}`));
  return probes;
}

const describe = (tally: Tally) =>
  `${tally.requests} (${Object.entries(tally.byCommand)
    .map(([name, n]) => `${name.replace(/Command$/, '')}${n > 1 ? ` ×${n}` : ''}`)
    .join(', ')}; ${fmt(tally.rcu, 1)} RCU, ${fmt(tally.wcu, 1)} WCU)`;

export async function roundTripsSection(context: BenchContext, sizes = [1_000, 50_000]): Promise<Section> {
  installMeter();
  const account = await benchAccount();
  const call = client(context.stack, account);
  const graph = await licensingGraph(call);
  const machineItem = (await getItem(recordKey(account.id, 'machines', graph.machine.id)))!;
  const machine = machineItem as unknown as Parameters<typeof componentItems>[0];
  // Warm-up: every module the probes use is loaded before anything is counted.
  await probe(call, graph);

  const runs: { size: number; probes: Probe[]; seedSeconds: number }[] = [];
  let records = 0;
  for (const size of sizes) {
    const started = performance.now();
    const missing = Math.max(0, size - records);
    // Half components of one machine (each with its fingerprint marker), half users (each with its e-mail marker).
    await seed([...componentItems(machine, Math.ceil(missing / 2)), ...userItems(account.id, null, Math.floor(missing / 2))]);
    records += missing;
    const seedSeconds = (performance.now() - started) / 1000;
    runs.push({ size, probes: await probe(call, graph), seedSeconds });
  }

  const rows: Measurement[] = [];
  const [first, ...rest] = runs;
  for (const [i, p] of first!.probes.entries()) {
    const others = rest.map((run) => run.probes[i]!);
    // The same requests at every size; capacity may differ only where a 10-record page is still filling up.
    const same = others.every((o) => JSON.stringify(o.tally.byCommand) === JSON.stringify(p.tally.byCommand));
    const limit = BUDGET[p.kind];
    const sizesText = [first!, ...rest].map((run) => fmt(run.size)).join(' / ');
    const figure = same
      ? `${describe(p.tally)} at ${sizesText}`
      : [p, ...others].map((x, j) => `${fmt(runs[j]!.size)}: ${describe(x.tally)}`).join('; ');
    rows.push({
      what: `${p.operation}`,
      figure,
      budget: limit === undefined ? 'same at every size' : `≤ ${limit}, same at every size`,
      met: same && (limit === undefined || [p, ...others].every((x) => x.tally.requests <= limit)),
    });
  }
  return {
    title: 'DynamoDB round trips per request',
    method:
      `Each operation is one HTTP request to the in-process API as the account's admin (\`Authorization: Bearer\`; validate-key has no bearer). A middleware on the store's DynamoDB client counts the requests by command and asks each for \`ReturnConsumedCapacity: TOTAL\`. The account held ${runs.map((r) => `${fmt(r.size)} seeded records (seeded in ${r.seedSeconds.toFixed(1)} s)`).join(', then ')}: half components of one machine, half users, each with its uniqueness marker, written with BatchWriteItem as the store lays them out, counters included. The request count includes resolving the account (path by id) and authentication. No webhook endpoint exists, so an emitted event costs only its endpoint lookup.`,
    rows,
    notes: [
      '**No cost grows with the table**: every operation makes the same requests at both sizes (capacity differs only where a 10-record page of licenses or machines is still filling up with the records the probes themselves add).',
      '',
      '**Why the counts exceed the budget.** Every request pays 3 GetItems before its own work: the account (`findAccount`, pattern 1), the token lookup (pattern 6) and the token\'s holder (is the user still active, what role; `authenticateToken`). A retrieve then reads its record (4 in all); a list reads the counter with BatchGetItem and queries one page (5); every change also queries the environment\'s webhook endpoints (`emitEvent`, pattern 15) before its TransactWriteItems, and reads the parents it checks (a component reads its machine, license and policy: 8). A user delete also queries the user\'s tokens to revoke them (7).',
      '',
      '**What would meet it** (a change of the authentication and event designs, not made here):',
      '1. Denormalise the bearer\'s state (status, role, environment, product/policy ancestry) into the token lookup item, rewritten in the transactions that ban, unban, change a role or delete the bearer (a bearer\'s token lookups are one GSI2 query away, and few). The holder read goes: retrieve 3, list 4.',
      '2. Read the account, the token lookup and every key known from the request (the record by path id, a list\'s counter, a create\'s named parent) together in one BatchGetItem. Retrieve: **1**. List: BatchGetItem + Query = **2**.',
      '3. Keep an environment\'s webhook subscriptions (≤ 20 endpoints: url, enabled, subscriptions) in one summary item written in the endpoints\' own transactions, and read it in that same BatchGetItem instead of querying GSI1. Update: BatchGetItem + TransactWriteItems = **2**; create: **2** (components: + BatchGetItem of license and policy = **3**); delete: **2** (a user delete: + the token query = **3**).',
      'With 1–3, validate-key (no bearer) would read the account, key marker and endpoints summary in one BatchGetItem, then license + machine marker, then machine + policy + component markers: about 4 requests instead of 10.',
    ].join('\n'),
  };
}
