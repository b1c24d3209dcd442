/**
 * The heartbeat sweeper: what one sweep of a minute costs (DynamoDB requests, seconds) with a
 * known number of machines due in it, and that the cost does not grow with the machines due
 * later or dead already: the sweep reads the due index by minute (shared/store/due.ts).
 */
import { randomUUID } from 'node:crypto';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type SweepReport, sweep, sweepCursorKey } from '#shared/licensing/heartbeat-sweep.ts';
import { db, getTable } from '#shared/store/client.ts';
import { dueAttributes } from '#shared/store/due.ts';
import { recordKey } from '#shared/store/keys.ts';
import { getItems } from '#shared/store/records.ts';
import type { Measurement, Section } from './report.ts';
import { type BenchContext, benchAccount, client, doc, fmt, installMeter, metered, must, seed, type Tally } from './support.ts';

const MINUTE = 60_000;
/** The policy's heartbeat, in seconds: every machine pings every ten minutes. */
const DURATION = 600;

interface Graph {
  accountId: string;
  productId: string;
  policyId: string;
  licenseId: string;
}

/**
 * Machines outside the swept minutes, written straight to the table: `count` alive ones due over
 * the hour after `now`, and `count` dead ones already handled (announced, out of the index, kept).
 */
function outsideItems(graph: Graph, count: number, now: number): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    for (const alive of [true, false]) {
      const id = randomUUID();
      const lastHeartbeat = alive ? now - DURATION * 1000 + Math.ceil(((i + 1) * 3_600_000) / count) : now - 86_400_000;
      items.push({
        ...recordKey(graph.accountId, 'machines', id),
        type: 'machines',
        id,
        accountId: graph.accountId,
        environmentId: null,
        created: new Date(now - 86_400_000).toISOString(),
        updated: new Date(now - 86_400_000).toISOString(),
        licenseId: graph.licenseId,
        policyId: graph.policyId,
        productId: graph.productId,
        fingerprint: `seed-${id}`,
        metadata: '{}',
        lastHeartbeat: new Date(lastHeartbeat).toISOString(),
        ...(alive
          ? dueAttributes(new Date(lastHeartbeat + DURATION * 1000))
          : { heartbeatDeathAnnounced: new Date(lastHeartbeat + DURATION * 1000).toISOString() }),
      });
    }
  }
  return items;
}

/** `count` machines activated through the API, then dead within the minute (from, to] and due in it. */
async function dueInWindow(call: ReturnType<typeof client>, graph: Graph, count: number, from: number, to: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 10) {
    const made = await Promise.all(
      Array.from({ length: Math.min(10, count - i) }, () =>
        must(
          call(
            'POST',
            '/machines',
            doc('machines', { fingerprint: `due-${randomUUID()}` }, { license: { data: { type: 'licenses', id: graph.licenseId } } }),
          ),
          'machine',
        ),
      ),
    );
    ids.push(...made.map((machine: { id: string }) => machine.id));
  }
  await Promise.all(
    ids.map((id, i) => {
      const deadline = from + Math.floor(((i + 1) * (to - from)) / (count + 1));
      return db().send(
        new UpdateCommand({
          TableName: getTable(),
          Key: recordKey(graph.accountId, 'machines', id),
          UpdateExpression: 'SET lastHeartbeat = :last, DUEPK = :pk, DUESK = :sk',
          ExpressionAttributeValues: {
            ':last': new Date(deadline - DURATION * 1000).toISOString(),
            ':pk': dueAttributes(new Date(deadline)).DUEPK,
            ':sk': dueAttributes(new Date(deadline)).DUESK,
          },
        }),
      );
    }),
  );
  return ids;
}

/** The minute `minute` (since the epoch) as a sweep's window: after its first millisecond, up to its last. */
const windowOf = (minute: number) => ({ from: minute * MINUTE, to: minute * MINUTE + MINUTE - 1 });

/** One sweep of a window, the cursor set at its start as the previous sweep would have left it. */
async function sweepWindow({ from, to }: { from: number; to: number }): Promise<{ report: SweepReport; tally: Tally; seconds: number }> {
  await db().send(new PutCommand({ TableName: getTable(), Item: { ...sweepCursorKey, until: from } }));
  const started = performance.now();
  const { result, tally } = await metered(() => sweep(to));
  return { report: result, tally, seconds: (performance.now() - started) / 1000 };
}

const byCommand = (tally: Tally) =>
  Object.entries(tally.byCommand)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, n]) => `${name.replace(/Command$/, '')} ×${n}`)
    .join(', ');

export async function sweeperSection(context: BenchContext, sizes = [1_000, 10_000], due = 100): Promise<Section> {
  installMeter();
  const account = await benchAccount();
  const call = client(context.stack, account);
  const product = await must(call('POST', '/products', doc('products', { name: 'Sweeper bench' })), 'product');
  const policy = await must(
    call(
      'POST',
      '/policies',
      doc(
        'policies',
        { name: 'Pings every ten minutes', requireHeartbeat: true, heartbeatDuration: DURATION },
        { product: { data: { type: 'products', id: product.id } } },
      ),
    ),
    'policy',
  );
  const license = await must(
    call('POST', '/licenses', doc('licenses', {}, { policy: { data: { type: 'policies', id: policy.id } } })),
    'license',
  );
  const graph: Graph = { accountId: account.id, productId: product.id, policyId: policy.id, licenseId: license.id };

  // The swept minutes lie before this one, one apart; the machines outside them are due after it.
  const thisMinute = Math.floor(Date.now() / MINUTE);
  const past = (k: number) => windowOf(thisMinute - 10 - k);
  // Warm-up: every module a sweep loads, on an empty minute.
  await sweepWindow(past(0));

  const runs: { outside: number; seedSeconds: number; report: SweepReport; tally: Tally; seconds: number; left: number }[] = [];
  let seeded = 0;
  for (const [k, size] of sizes.entries()) {
    const seedStarted = performance.now();
    await seed(outsideItems(graph, size - seeded, (thisMinute + 1) * MINUTE));
    seeded = size;
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const window = past(k + 1);
    const ids = await dueInWindow(call, graph, due, window.from, window.to);
    const { report, tally, seconds } = await sweepWindow(window);
    const left = (await getItems(ids.map((id) => recordKey(account.id, 'machines', id)))).length;
    runs.push({ outside: size, seedSeconds, report, tally, seconds, left });
  }
  const empty = await sweepWindow(past(sizes.length + 1));

  const [first] = runs;
  const rows: Measurement[] = runs.map((run) => ({
    what: `A minute with ${due} machines due (dead, culled), ${fmt(run.outside)} due later in the hour and ${fmt(run.outside)} dead already handled`,
    figure: `${fmt(run.tally.requests)} requests (${byCommand(run.tally)}), ${fmt(run.tally.rcu, 1)} RCU, ${fmt(run.tally.wcu, 1)} WCU, ${run.seconds.toFixed(2)} s; ${run.report.due} found, ${run.report.failed} failed, ${run.left} left`,
    budget: `≤ 60 s; the requests of ${fmt(first?.outside ?? 0)} outside (${fmt(first?.tally.requests ?? 0)})`,
    met:
      run.seconds <= 60 &&
      run.report.due === due &&
      run.report.failed === 0 &&
      run.left === 0 &&
      run.tally.requests === first?.tally.requests,
  }));
  const perMachine = first ? (first.tally.requests - empty.tally.requests) / due : 0;
  rows.push({
    what: `A minute with nothing due (${fmt(seeded)} due later, ${fmt(seeded)} dead handled)`,
    figure: `${fmt(empty.tally.requests)} requests (${byCommand(empty.tally)}), ${(empty.seconds * 1000).toFixed(0)} ms`,
    budget: 'the cursor and the minute’s queries only',
  });
  rows.push({ what: 'Per machine culled', figure: `${fmt(perMachine, 1)} requests`, budget: '' });

  return {
    title: 'Heartbeat sweeper',
    method: `\`sweep()\` (shared/licensing/heartbeat-sweep.ts) runs in this process over one minute some ten minutes back, its cursor set at the minute's start as the previous sweep would have left it; the stack's own sweeper is off. The seconds follow the machine's load (see the load average above): the requests are the figure to compare. ${due} machines are activated through the API under a policy requiring a ping every ${DURATION / 60} minutes (DEACTIVATE_DEAD, NO_REVIVE), then made dead within that minute and due in it (their lastHeartbeat and due time rewritten). Outside it, machines are written straight to the table: alive ones due over the hour from the next minute on (the due index's later minutes) and as many dead ones already handled (announced, out of the index), ${sizes.map((size) => fmt(size)).join(', then ')} of each (seeded in ${runs.map((run) => `${run.seedSeconds.toFixed(1)} s`).join(' and ')}). Requests are counted on the store's client as in the other sections; the account has no webhook endpoint, so each event costs the read of the environment's subscriptions and no write.`,
    rows,
    notes: [
      `**Flat in what lies outside the minute.** A sweep reads its cursor, queries the due index's partition of each minute it covers (one here: each window is a minute, from its first millisecond), hands each record found to its type's handler and moves the cursor. The ${fmt(seeded)} machines due later sit in the partitions of later minutes and the dead ones already handled in none, so neither adds a request: a minute with nothing due costs the cursor's read and write and the minute's Query.`,
      `**Per machine culled** (${fmt(perMachine, 1)} requests): the machine and its policy read (GetItem ×2), the subscriptions read for \`machine.heartbeat.dead\` and the transaction that announces the death and records the cull; then the removal as a deactivation makes it: the environments a global machine's children may live in (a Query and its page's count), the machine's components and its processes (a Query each), the subscriptions again for \`machine.deleted\`, the transaction that deletes the machine with its seat, its process count, its fingerprint entry and its collection counts, and the three fingerprint counts (policy, product, account) the machine was the last holder of, each deleted at 0 (DeleteItem ×3). A machine in its resurrection window, or under KEEP_DEAD, costs the first four requests only. The write units are DynamoDB Local's figure for the transactions (billed twice) and every index entry they remove.`,
      'On AWS a sweep runs every minute (an EventBridge rule), ten records handled at a time; a minute with many more machines due takes proportionally longer, and a sweep that overruns the next is harmless: each handler writes on condition of the machine as read, and the cursor moves only from where a sweep found it.',
    ].join('\n'),
  };
}
