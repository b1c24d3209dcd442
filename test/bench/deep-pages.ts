/**
 * Deep pages: the read cost and time of pages 1, 10 and 100 (size 100) of a 20,000-component
 * list (one machine's components, `GET /components?machine=<id>`), by page[number] and by
 * page[cursor].
 */

import { recordKey } from '#shared/store/keys.ts';
import { getItem } from '#shared/store/records.ts';
import { FILTERED_ATTRIBUTES } from '#shared/store/table.ts';
import type { Measurement, Section } from './report.ts';
import {
  type BenchContext,
  benchAccount,
  client,
  componentItems,
  fmt,
  installMeter,
  licensingGraph,
  median,
  metered,
  seed,
  type Tally,
} from './support.ts';

const SIZE = 100;
const DEPTHS = [1, 10, 100];

/**
 * What the deepest page by number costs beyond the budget line, and why: the budget rounds the
 * keys up to 4 KB once, DynamoDB rounds every Query, and DynamoDB Local ends a Query page at
 * 1 MB of the table items it passes, even on an index of small entries.
 */
function overshoot(deepest: PageCost, first: PageCost, skipped: number, keyBytes: number): string {
  const skipQueries = (deepest.tally.byCommand.QueryCommand ?? 0) - (first.tally.byCommand.QueryCommand ?? 0);
  const exact = (skipped * keyBytes) / 8192;
  const skipRcu = deepest.tally.rcu - first.tally.rcu;
  const onDynamoDb = Math.ceil((skipped * keyBytes) / (1024 * 1024));
  return `**Rounding**: the ${fmt(skipped)} keys page ${fmt(skipped / SIZE + 1)} skips are ${fmt(exact, 1)} RCU of data; the skip cost ${fmt(skipRcu, 1)} RCU in ${skipQueries} Queries, each rounded up to 4 KB. DynamoDB Local ends a Query page at 1 MB of the table items it passes (about 700 components) even on an index of small entries, where DynamoDB ends it at 1 MB of index items (about ${fmt(Math.floor((1024 * 1024) / keyBytes))} entries): there the skip would take ${onDynamoDb} Queries and at most ${fmt(onDynamoDb * 0.5, 1)} RCU of rounding. The budget line allows each Query of the skip its rounding, since that is what reading the keys costs.`;
}

interface PageCost {
  tally: Tally;
  ms: number;
  shown: number;
}

export async function deepPagesSection(context: BenchContext, records = 20_000): Promise<Section> {
  installMeter();
  const account = await benchAccount();
  const call = client(context.stack, account);
  const graph = await licensingGraph(call);
  const machine = (await getItem(recordKey(account.id, 'machines', graph.machine.id)))!;
  const items = componentItems(machine as unknown as Parameters<typeof componentItems>[0], records);
  const seedStarted = performance.now();
  await seed(items);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const records1 = items.filter((item) => item.type === 'components');
  // What a skipped record costs to read: its index entry (the index keys, the table keys and the ids lists filter on), as stored.
  const sample = records1[0]!;
  const entryAttributes = ['PK', 'SK', 'GSI2PK', 'GSI2SK', ...FILTERED_ATTRIBUTES].filter((name) => typeof sample[name] === 'string');
  // DynamoDB counts 100 bytes more for each index entry.
  const keyBytes = 100 + entryAttributes.reduce((sum, name) => sum + name.length + String(sample[name]).length, 0);
  const itemBytes = Buffer.byteLength(JSON.stringify(sample));

  const list = `/components?machine=${graph.machine.id}&page[size]=${SIZE}`;
  const page = async (query: string): Promise<PageCost & { next?: string }> => {
    const runs: { tally: Tally; ms: number; body: any }[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const { result, tally } = await metered(() => call('GET', `${list}&${query}`));
      if (result.status !== 200) throw new Error(`${query}: ${result.status} ${JSON.stringify(result.body)}`);
      runs.push({ tally, ms: performance.now() - started, body: result.body });
    }
    const body = runs[0]!.body;
    const next = body.links?.next ? (new URL(body.links.next, 'http://x').searchParams.get('page[cursor]') ?? undefined) : undefined;
    return { tally: runs[0]!.tally, ms: median(runs.map((r) => r.ms)), shown: body.data.length, next };
  };
  // Warm-up: modules and JIT.
  await page('page[number]=1');

  const byNumber = new Map<number, PageCost>();
  for (const depth of DEPTHS) byNumber.set(depth, await page(`page[number]=${depth}`));

  const byCursor = new Map<number, PageCost>();
  let cursor = '';
  for (let depth = 1; depth <= Math.max(...DEPTHS); depth++) {
    if (DEPTHS.includes(depth)) {
      const cost = await page(`page[cursor]=${encodeURIComponent(cursor)}`);
      byCursor.set(depth, cost);
      cursor = cost.next ?? '';
    } else {
      const { body } = await call('GET', `${list}&page[cursor]=${encodeURIComponent(cursor)}`);
      cursor = new URL(body.links.next, 'http://x').searchParams.get('page[cursor]') ?? '';
    }
  }

  const describe = (c: PageCost) =>
    `${c.tally.requests} requests (${Object.entries(c.tally.byCommand)
      .map(([n, k]) => `${n.replace(/Command$/, '')}${k > 1 ? ` ×${k}` : ''}`)
      .join(', ')}), ${fmt(c.tally.rcu, 1)} RCU, ${fmt(c.ms)} ms, ${c.shown} shown`;
  const first = byCursor.get(1)!;
  const rows: Measurement[] = [];
  for (const depth of DEPTHS) {
    const c = byCursor.get(depth)!;
    rows.push({
      what: `page[cursor], page ${depth}`,
      figure: describe(c),
      budget: `the cost of page 1 (${first.tally.requests} requests, ${fmt(first.tally.rcu, 1)} RCU)`,
      met: c.tally.requests === first.tally.requests && Math.abs(c.tally.rcu - first.tally.rcu) <= 0.5,
    });
  }
  const one = byNumber.get(1)!;
  for (const depth of DEPTHS) {
    const c = byNumber.get(depth)!;
    const skipped = (depth - 1) * SIZE;
    // Reading only the keys it skips: eventually consistent, 0.5 RCU per 4 KB of keys, and as
    // DynamoDB bills every read, each Query's response rounded up to the next 4 KB.
    const skipQueries = (c.tally.byCommand.QueryCommand ?? 0) - (one.tally.byCommand.QueryCommand ?? 0);
    const keysRcu = Math.ceil((skipped * keyBytes) / 4096) * 0.5 + skipQueries * 0.5;
    const limit = one.tally.rcu + keysRcu;
    rows.push({
      what: `page[number]=${depth} (skips ${fmt(skipped)})`,
      figure: describe(c),
      budget: `≤ page 1 + the skipped keys (+ 0.5 RCU rounding per Query): ${fmt(limit, 1)} RCU`,
      met: c.tally.rcu <= limit + 0.01,
    });
  }
  return {
    title: 'Deep pages',
    method: `One machine with ${fmt(records)} components (seeded in ${seedSeconds.toFixed(1)} s with BatchWriteItem, as components.create lays them out), listed by \`GET /components?machine=<id>&page[size]=${SIZE}\` as the admin, by page[number] and by page[cursor] (the cursor pages reached by following links.next). Requests and RCU are counted on the store's client (authentication and the counter read included); the time is the median of three requests. A component item is about ${fmt(itemBytes)} bytes; its entry in the index (PK, SK, GSI2PK, GSI2SK, the ids lists filter on, and the 100 bytes DynamoDB adds to each entry) about ${keyBytes} bytes, so reading only the entries of the skipped records costs 0.5 RCU per ${Math.floor(4096 / keyBytes)} records.`,
    rows,
    notes: [
      "**Cursor pages** cost the same at every depth: the Query starts just below the cursor's sort key.",
      `**page[number] pages** skip the earlier pages on GSI2_SLIM, the index of the machine's components, which holds each component's keys and the ids lists filter on (about ${keyBytes} bytes a record), never the record; then they locate the page there just below the last key skipped and read its records from the table (one BatchGetItem, with the list's counter). DynamoDB charges a Query by the size of the index items it reads, whatever it returns, so the skip costs the entries and the page costs what page 1 costs. When the index held whole components (ALL) the skip paid each component's ~1.5 KB: 166.5 RCU for page 10 and 1,628.5 RCU for page 100. With the keys-only twins beside those whole-record indexes (the release before the small entries) page 1 cost 20.5 RCU (its records read within the Query) and page 100 339.5 RCU (keys of about 260 bytes): reads cost more now, a page's records by key and entries that carry the filter ids, which the writes pay back (the cost section).`,
      overshoot(byNumber.get(Math.max(...DEPTHS))!, one, (Math.max(...DEPTHS) - 1) * SIZE, keyBytes),
      '**What the small entries save**: writes. A record is written to the index of every collection it belongs to when it is created and when it is deleted (a component: four), one small entry each (well under 1 KB); an update writes an entry only when it changes an id the entry holds. The record itself is read by key for the page shown: 1 RCU per record up to 4 KB here, where the counter of the machine comes with the page and the read is strongly consistent (0.5 RCU, eventually consistent, for a list of a whole type, whose counters come with the request).',
      "Every page's requests include the read-ahead BatchGetItem (account, token lookup) and the counter of the machine's components (a second BatchGetItem: a filtered list counts its own collection): see the round-trip section.",
    ].join('\n'),
  };
}
