/**
 * The due index (DUE, docs/data-model.md): records to look at again at a given time (a machine
 * whose heartbeat runs out, a process that dies), found by time rather than by any table scan.
 * A record due at time t carries `DUEPK` = `DUE#<the minute of t>` and `DUESK` = t (ISO 8601);
 * the sweeper (shared/licensing/heartbeat-sweep.ts) queries each minute's partition up to now. A
 * record leaves the index by losing both attributes, or with its own deletion.
 *
 * One partition a minute, across all accounts: a minute's writes are the pings due in it, far
 * below a partition's throughput at any realistic number of machines per minute.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, getTable as table } from './client.ts';
import type { AccessPattern } from './data-model.ts';
import type { Key } from './keys.ts';

export const DUE_INDEX = 'DUE';
export const DUE_BUCKET_MS = 60_000;

const bucketOf = (ms: number) => Math.floor(ms / DUE_BUCKET_MS);
const partitionOf = (bucket: number) => `DUE#${bucket}`;

/** The attributes that put a record in the index at `at`: for a new item, none when null. */
export const dueAttributes = (at: Date | null): { DUEPK: string; DUESK: string } | Record<string, never> =>
  at === null ? {} : { DUEPK: partitionOf(bucketOf(at.getTime())), DUESK: at.toISOString() };

/** The changes that move a stored record in the index to `at`, or out of it (null). */
export const dueChanges = (at: Date | null): { DUEPK: string | null; DUESK: string | null } =>
  at === null ? { DUEPK: null, DUESK: null } : { DUEPK: partitionOf(bucketOf(at.getTime())), DUESK: at.toISOString() };

/** A record found due: its key and when it was due. */
export interface Due extends Key {
  due: string;
}

/**
 * The records due after `from` and at or before `to` (ms since the epoch), oldest minute first:
 * one query (and its pages) per minute between them.
 */
export async function dueBetween(from: number, to: number): Promise<Due[]> {
  const found: Due[] = [];
  const after = new Date(from).toISOString();
  const until = new Date(to).toISOString();
  for (let bucket = bucketOf(from); bucket <= bucketOf(to); bucket++) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await db().send(
        new QueryCommand({
          TableName: table(),
          IndexName: DUE_INDEX,
          KeyConditionExpression: 'DUEPK = :bucket AND DUESK BETWEEN :after AND :until',
          ExpressionAttributeValues: { ':bucket': partitionOf(bucket), ':after': after, ':until': until },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) {
        if ((item.DUESK as string) > after) found.push({ PK: item.PK as string, SK: item.SK as string, due: item.DUESK as string });
      }
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return found;
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 49,
    name: 'A record put in, moved in or taken out of the due index',
    operation:
      "In the transaction of the record's own write: its `DUEPK`/`DUESK` set on its Put (a machine activated under a policy requiring heartbeats: due at creation + duration), `SET` on its Update to move it (a ping: to its new deadline; the sweeper: to a later look) or `REMOVE`d to take it out (a reset of an unwatched machine; the sweeper, of one kept dead); each Update conditional on `DUESK` and `lastHeartbeat` as read and no `heartbeatCullStarted`; a ping or reset also sets the `lastHeartbeat` its fingerprint markers carry (Update if `ref` is the machine's). A deleted record leaves the index with its item",
    index: 'DUE',
    key: "`PK = A#<acct>#MACHINE#<id>` (the record's own key)",
    usedBy: "machines.create, machines.ping, .reset (and their older paths), the sweeper's machine handler",
    tests: ['store/data-model', 'http/heartbeats'],
  },
];
