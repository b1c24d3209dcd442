/**
 * Round trips: the DynamoDB requests (and capacity units) each API operation makes, counted by a
 * middleware on the store's client while one real HTTP request runs through the in-process
 * API, with 1,000 and then 50,000 records in the account.
 */
import { randomUUID } from 'node:crypto';
import { recordKey } from '#shared/store/keys.ts';
import { getItem } from '#shared/store/records.ts';
import type { Measurement, Section } from './report.ts';
import {
  type BenchContext,
  benchAccount,
  type Client,
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
  type Tally,
  userItems,
} from './support.ts';

type Kind = 'retrieve' | 'create' | 'update' | 'delete' | 'list' | 'action' | 'validation';
/** A validation reads once after its first read and, with no endpoint listening, writes nothing (data model, pattern 54). */
const BUDGET: Record<Kind, number | undefined> = {
  retrieve: 2,
  create: 3,
  update: 3,
  delete: 3,
  list: 3,
  action: undefined,
  validation: 2,
};

export interface Probe {
  operation: string;
  kind: Kind;
  tally: Tally;
  status: number;
  /** Wall time of the request through the in-process API, ms. */
  ms: number;
}

const ref = (type: string, id: string) => ({ data: { type, id } });

/** Every kind of operation on users, licenses, machines and components, plus a validation. */
/** `settle`: awaited before each measured request (e.g. until the webhook deliveries of the last one are done). */
export async function probe(
  call: Client,
  graph: Awaited<ReturnType<typeof licensingGraph>>,
  settle: () => Promise<unknown> = async () => {},
  /** Bill writes by AWS's rules (capacity.ts): exact units, but the meter's own reads lengthen the request. */
  billed = false,
): Promise<Probe[]> {
  const probes: Probe[] = [];
  const measure = async (operation: string, kind: Kind, request: () => Promise<{ status: number; body: any }>) => {
    await settle();
    const started = performance.now();
    const { result, tally } = await metered(request, { billed });
    const ms = performance.now() - started;
    if (result.status >= 300) throw new Error(`${operation}: ${result.status} ${JSON.stringify(result.body)}`);
    probes.push({ operation, kind, tally, status: result.status, ms });
    return result.body?.data;
  };

  const product = await measure('products.create', 'create', () => call('POST', '/products', doc('products', { name: 'Probe' })));
  await measure('products.update', 'update', () =>
    call('PATCH', `/products/${product.id}`, { data: { type: 'products', id: product.id, attributes: { name: 'Renamed' } } }),
  );
  const policy = await measure('policies.create', 'create', () =>
    call('POST', '/policies', doc('policies', { name: 'Probe' }, { product: ref('products', graph.product.id) })),
  );
  await measure('policies.update', 'update', () =>
    call('PATCH', `/policies/${policy.id}`, { data: { type: 'policies', id: policy.id, attributes: { name: 'Renamed' } } }),
  );
  await measure('policies.delete', 'delete', () => call('DELETE', `/policies/${policy.id}`));
  await measure('products.delete', 'delete', () => call('DELETE', `/products/${product.id}`));
  const entitlement = await measure('entitlements.create', 'create', () =>
    call('POST', '/entitlements', doc('entitlements', { name: 'Probe', code: `probe-${randomUUID()}` })),
  );
  await measure('entitlements.update', 'update', () =>
    call('PATCH', `/entitlements/${entitlement.id}`, {
      data: { type: 'entitlements', id: entitlement.id, attributes: { name: 'Renamed' } },
    }),
  );
  await measure('entitlements.delete', 'delete', () => call('DELETE', `/entitlements/${entitlement.id}`));

  const user = await measure('users.create', 'create', () =>
    call('POST', '/users', doc('users', { email: `${randomUUID()}@bench.example` })),
  );
  await measure('users.retrieve', 'retrieve', () => call('GET', `/users/${user.id}`));
  await measure('users.update', 'update', () =>
    call('PATCH', `/users/${user.id}`, { data: { type: 'users', id: user.id, attributes: { firstName: 'Ada' } } }),
  );
  await measure('users.list', 'list', () => call('GET', '/users?page[size]=10&page[number]=1'));
  await measure('users.delete', 'delete', () => call('DELETE', `/users/${user.id}`));

  const license = await measure('licenses.create', 'create', () =>
    call('POST', '/licenses', doc('licenses', {}, { policy: ref('policies', graph.policy.id) })),
  );
  // Validated once now, unmeasured: the validations measured below take the hot path, a license
  // validated again within the minute its lastValidated is noted for (docs/rules.md §19.5), which
  // only reads; this one's event is delivered long before they run. By id, so that validate-key's
  // count per address (flushed once per batch of hits) moves as it did before.
  await must(call('POST', `/licenses/${license.id}/actions/validate`, { meta: {} }), 'a first validation');
  await measure('licenses.retrieve', 'retrieve', () => call('GET', `/licenses/${license.id}`));
  await measure('licenses.update', 'update', () =>
    call('PATCH', `/licenses/${license.id}`, { data: { type: 'licenses', id: license.id, attributes: { name: 'Renamed' } } }),
  );
  await measure('licenses.list', 'list', () => call('GET', '/licenses?page[size]=10&page[number]=1'));

  const machine = await measure('machines.create', 'create', () =>
    call('POST', '/machines', doc('machines', { fingerprint: `fp-${randomUUID()}` }, { license: ref('licenses', license.id) })),
  );
  await measure('machines.retrieve', 'retrieve', () => call('GET', `/machines/${machine.id}`));
  await measure('machines.update', 'update', () =>
    call('PATCH', `/machines/${machine.id}`, { data: { type: 'machines', id: machine.id, attributes: { name: 'Renamed' } } }),
  );
  await measure('machines.list', 'list', () => call('GET', '/machines?page[size]=10&page[number]=1'));
  await measure('machines.ping', 'action', () => call('POST', `/machines/${machine.id}/actions/ping`));

  const parts = [`a-${randomUUID()}`, `b-${randomUUID()}`, `c-${randomUUID()}`];
  const component = await measure('components.create', 'create', () => call('POST', '/components', componentBody(machine.id, parts[0])));
  for (const part of parts.slice(1)) await must(call('POST', '/components', componentBody(machine.id, part)), 'component');
  await measure('components.retrieve', 'retrieve', () => call('GET', `/components/${component.id}`));
  await measure('components.update', 'update', () =>
    call('PATCH', `/components/${component.id}`, { data: { type: 'components', id: component.id, attributes: { name: 'Renamed' } } }),
  );
  await measure('components.list', 'list', () => call('GET', '/components?page[size]=10&page[number]=1'));
  await measure('components.list ?machine= (seeded machine)', 'list', () =>
    call('GET', `/components?machine=${graph.machine.id}&page[size]=10&page[number]=1`),
  );
  await measure('licenses.validateKey (fingerprint + 3 components)', 'validation', () =>
    call(
      'POST',
      '/licenses/actions/validate-key',
      { meta: { key: license.attributes.key, scope: { fingerprint: machine.attributes.fingerprint, components: parts } } },
      null,
    ),
  );
  await measure('licenses.validate (fingerprint + 3 components, as the admin)', 'validation', () =>
    call('POST', `/licenses/${license.id}/actions/validate`, {
      meta: { scope: { fingerprint: machine.attributes.fingerprint, components: parts } },
    }),
  );
  await measure('components.delete', 'delete', () => call('DELETE', `/components/${component.id}`));
  await measure('machines.delete', 'delete', () => call('DELETE', `/machines/${machine.id}`));
  await measure('licenses.delete', 'delete', () => call('DELETE', `/licenses/${license.id}`));
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
    runs.push({ size, probes: await probe(call, graph, undefined, true), seedSeconds });
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
    method: `Each operation is one HTTP request to the in-process API as the account's admin (\`Authorization: Bearer\`; validate-key has no bearer). A middleware on the store's DynamoDB client counts the requests by command and asks each for \`ReturnConsumedCapacity: TOTAL\`. The account held ${runs.map((r) => `${fmt(r.size)} seeded records (seeded in ${r.seedSeconds.toFixed(1)} s)`).join(', then ')}: half components of one machine, half users, each with its uniqueness marker, written with BatchWriteItem as the store lays them out, counters included. The request count includes resolving the account (path by id) and authentication. No webhook endpoint exists; a change reads the environment's subscriptions item in its first BatchGetItem either way.`,
    rows,
    notes: [
      '**No cost grows with the table**: every operation makes the same requests at both sizes (capacity differs only where a 10-record page of licenses or machines is still filling up with the records the probes themselves add).',
      '',
      "**How the counts are reached** (data-model pattern 36). The pipeline reads, in one BatchGetItem before the handler runs, the account, the token's lookup item, the record the path names, the records a create body's relationships name, a list's counters and the environment's webhook subscriptions item (`shared/http/request-keys.ts`). The token lookup, keyed by the digest of the value alone, carries what its holder acts as (kind, a license's product and policy), so the holder is not read: a ban, a role change, a password reset or the holder's delete revokes the holder's tokens instead, through a strongly consistent register per bearer (pattern 35). The subscriptions item (≤ 20 endpoints: url, enabled, subscriptions) is written in the endpoints' own transactions, so a change no longer queries the endpoints. So a retrieve is **1** request, a list **3** (the Query of its collection index, which holds keys and the ids lists filter on, then one BatchGetItem of the page's records, with a filtered list's own counter and a list of machines' or licenses' policies), an update or delete **2**, a create **2** (a machine reads its license's policy: 3; a component its machine's license and policy together: 3).",
      '',
      "A user delete reads the user's token register (a Query) and, to clear the owner links of what the user owns, the counts of its owner collections (a BatchGetItem) and the members of those that hold any (a Query): 5 for a user without tokens, as here, over the budget of 3 by that clearing; a user's tokens add a BatchGetItem of the token records and the transaction that revokes them, and a user owning more than 25 records leaves the clearing to the cascades worker (data model pattern 59). Behind an environment code the first BatchGetItem cannot name the environment-scoped keys yet, so such a request reads the environment and its record separately: one or two requests more; behind an account slug only the first request of a container does (it then knows the account the slug names, and reads that account's item in the marker's place, its `slug` checked). Machines show their heartbeat as their policy judges it now, and licenses their policy's limits and check-in period (docs/rules.md §18.7), so a machine's or a license's retrieve also reads its policy (2), and a license's update and delete read it for the answer and the event (3; the delete's 7 is over its budget by the removal's own reads, as before).",
      '',
      "**Validation reads twice and writes only to tell a listening endpoint** (data-model pattern 54). validate-key's first BatchGetItem reads the key's marker with the account; the marker names the license and carries its policy and owner, so the second BatchGetItem reads the license, policy, owner, the fingerprint's machine marker (which carries the machine's id, environment, creation and last heartbeat) and the device counts of the components given (keyed by the machine's fingerprint on its license, so no read waits for the machine's id; the license's counts only when a strict policy or a scope that found no machine asks). A third request writes the event only when an endpoint listens; the address's limit (routes anyone may call are limited per address) is counted by the container and added to the table once per tenth of the limit (pattern 20), so here, without endpoints, nothing is written. A license's first validation in a minute also writes its `lastValidated` (one UpdateItem, rules §19.5): the probes validate the key once before they measure, so what is measured is the path of a license validated again. A container that validated the key with the same scope before reads all of it ahead with the marker: one request (the probes here use another scope than the validation before, so two). It made 9 to 10 requests one after another before. A validation by id reads the license with the bearer, then the same second BatchGetItem.",
      '',
      "A delete of a product, a policy or an entitlement reads what hangs on it before its transaction (the counters of its collections and a Query of those holding any; an entitlement's attachments), and a machine's delete takes its components and the counts they leave with it, so these are over the budget as a component's delete is (below).",
      '',
      "A component's delete leaves its fingerprint's counts (its license, policy, product, account and device counts): those it leaves at 0 are deleted after the commit, all in one transaction conditional on each being 0 — a count still held by another record (here the machine's component total) cancels it, and the rest are deleted in a second one: 4 requests, over the budget of 3 by that second try; which counts are empty is known only once the decrements have landed.",
    ].join('\n'),
  };
}
