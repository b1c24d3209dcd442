/**
 * Deep pages: the read cost and time of pages 1, 10 and 100 (size 100) of a 20,000-component
 * list (one machine's components, `GET /components?machine=<id>`), by page[number] and by
 * page[cursor].
 */
import { getItem } from '#shared/store/records.ts';
import { recordKey } from '#shared/store/keys.ts';
import type { Measurement, Section } from './report.ts';
import {
  benchAccount,
  client,
  componentItems,
  fmt,
  installMeter,
  licensingGraph,
  median,
  metered,
  seed,
  type BenchContext,
  type Tally,
} from './support.ts';

const SIZE = 100;
const DEPTHS = [1, 10, 100];

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
  // What a key costs to read: the index keys and the table keys of one component, as stored.
  const sample = records1[0]!;
  const keyBytes = ['PK', 'SK', 'GSI2PK', 'GSI2SK'].reduce((sum, name) => sum + name.length + String(sample[name]).length, 0);
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
    const next = body.links?.next ? new URL(body.links.next, 'http://x').searchParams.get('page[cursor]') ?? undefined : undefined;
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
    `${c.tally.requests} requests (${Object.entries(c.tally.byCommand).map(([n, k]) => `${n.replace(/Command$/, '')}${k > 1 ? ` ×${k}` : ''}`).join(', ')}), ${fmt(c.tally.rcu, 1)} RCU, ${fmt(c.ms)} ms, ${c.shown} shown`;
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
    // Reading only the keys it skips: eventually consistent, 0.5 RCU per 4 KB of keys.
    const keysRcu = Math.ceil((skipped * keyBytes) / 4096) * 0.5;
    const limit = one.tally.rcu + keysRcu;
    rows.push({
      what: `page[number]=${depth} (skips ${fmt(skipped)})`,
      figure: describe(c),
      budget: `≤ page 1 + the skipped keys: ${fmt(limit, 1)} RCU`,
      met: c.tally.rcu <= limit + 0.01,
    });
  }
  return {
    title: 'Deep pages',
    method: `One machine with ${fmt(records)} components (seeded in ${seedSeconds.toFixed(1)} s with BatchWriteItem, as components.create lays them out), listed by \`GET /components?machine=<id>&page[size]=${SIZE}\` as the admin, by page[number] and by page[cursor] (the cursor pages reached by following links.next). Requests and RCU are counted on the store's client (authentication and the counter read included); the time is the median of three requests. A component item is about ${fmt(itemBytes)} bytes; its keys (PK, SK, GSI2PK, GSI2SK) about ${keyBytes} bytes, so reading only the keys of the skipped records would cost 0.5 RCU per ${Math.floor(4096 / keyBytes)} records.`,
    rows,
    notes: [
      '**Cursor pages** cost the same at every depth: the Query starts just below the cursor\'s sort key.',
      '**page[number] pages** read the skipped rows with `ProjectionExpression` on the sort key only, but DynamoDB charges a Query by the size of the items it reads from the index, not by the attributes it returns: GSI2 projects ALL, so each skipped component costs its full ~1.5 KB, and one Query reads at most 1 MB (about 700 components), hence one more request per 700 skipped rows. That is why page 100 costs about five times the budget.',
      '**What would meet it**: skip over an index that holds keys only. A KEYS_ONLY twin of each collection index (same partition and sort keys as GSI1–GSI5, projecting nothing else) holds about 260 bytes per record: skipping 9,900 records would then read about 2.5 MB, about 315 RCU in 3 Queries, within the budget. The cost is one more index write per collection per change (a component belongs to four). The cheaper alternative is to keep page[number] for shallow pages and steer deep reads to page[cursor] (links.next already carries a cursor when the client asks for one). Not changed here: either is a change of the table\'s indexes or of the API\'s contract.',
      'The 5 requests of every page include the account read, the token lookup and its holder (3 GetItems) and the counter (BatchGetItem): see the round-trip section for the design that folds them into one.',
    ].join('\n'),
  };
}
