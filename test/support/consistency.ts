/**
 * The table's invariants (docs/data-model.md), checked over a strongly consistent scan of the
 * whole table, or of one account's items: what a write interrupted half-way, or applied twice,
 * would break.
 *
 * - markers: every uniqueness marker a record lists exists and names it (`ref`), every marker
 *   is of a kind an entity declares (`MARKER_KINDS`) and names a record that lists it, and the facts a marker carries (a machine's heartbeat, a
 *   license's policy and owner) are the record's;
 * - counts: every collection counter equals the records in its collection; every holder count
 *   (fingerprints, processes: what records list in `counted`) and every seat count (a license's
 *   machines and their cores) equals its members, each share the members in its environment;
 *   an entitlement set's `n` its attachments;
 * - parents: a policy's product, a license's policy and product, a machine's, a component's and a
 *   process's license, policy, product (and machine), a token's bearer, and every record's
 *   environment exist;
 * - lookups: a token's lookup and register entry exist for every token and name only tokens that
 *   exist (a lookup without its token is a revoked token that still works); a machine's entry
 *   under its fingerprint likewise; an environment's subscriptions item holds each of its webhook
 *   endpoints as it is, and no other; an attached entitlement exists and has its pointer, a
 *   set's tombstone names an entitlement that is gone, no entitlement's removal was cut short; an
 *   account's slug marker names it.
 *
 * What the data model leaves behind on purpose is no violation: counts at 0, a license's seat
 * shares after its delete, a webhook event whose endpoint is gone, a license whose owner is gone,
 * the entitlement sets of removed holders, pointers of attachments that failed. An environment
 * being purged (its purge marker present) is a cascade pending: its items, and the counts its
 * shares are part of, are passed over. Made for tables written by the current code: records made
 * before a layout existed (a machine without its fingerprint entry) would be reported.
 */
import { DynamoDBClient, ScanCommand, type ScanCommandInput } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { markerKinds } from '#dev/data-model.ts';
import { digest } from '#shared/auth/secrets.ts';
import {
  bearerTokenEntryKey,
  entitlementHolderKey,
  type Key,
  licenseCoreCountKey,
  licenseMachineCountKey,
  machineFingerprintEntryKey,
  PREFIXES,
  type RecordType,
  recordKey,
  subscriptionsKey,
  tokenLookupKey,
} from '#shared/store/keys.ts';

export type Item = Record<string, unknown> & Key;

export interface Violation {
  rule: string;
  /** The item found wrong (or, for a missing one, the item that needs it). */
  key: Key;
  detail: string;
}

export interface ConsistencyOptions {
  /** Only this account's items (and its token lookups and slug marker); the whole table when omitted. */
  accountId?: string;
  tableName?: string;
  /** A client of its own by default: never one of the service's, which may be injecting faults. */
  client?: DynamoDBClient;
}

/** Scans the table (strongly consistent) and returns what breaks its invariants. */
export async function checkConsistency(options: ConsistencyOptions = {}): Promise<Violation[]> {
  return violationsIn(await scanItems(options));
}

export async function scanItems(options: ConsistencyOptions = {}): Promise<Item[]> {
  const client = options.client ?? new DynamoDBClient({});
  const tableName = options.tableName ?? process.env.TABLE_NAME;
  if (!tableName) throw new Error('No table: pass tableName or set TABLE_NAME');
  const filter: Partial<ScanCommandInput> = options.accountId
    ? {
        FilterExpression: 'begins_with(PK, :records) OR begins_with(PK, :counters) OR PK = :account OR accountId = :id',
        ExpressionAttributeValues: {
          ':records': { S: `A#${options.accountId}#` },
          ':counters': { S: `COUNT#A#${options.accountId}#` },
          ':account': { S: `ACCOUNT#${options.accountId}` },
          ':id': { S: options.accountId },
        },
      }
    : {};
  const items: Item[] = [];
  let start: ScanCommandInput['ExclusiveStartKey'];
  try {
    do {
      const page = await client.send(new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey: start, ...filter }));
      items.push(...(page.Items ?? []).map((item) => unmarshall(item) as Item));
      start = page.LastEvaluatedKey;
    } while (start);
  } finally {
    if (!options.client) client.destroy();
  }
  return items;
}

const TYPE_OF_PREFIX = new Map<string, RecordType>(Object.entries(PREFIXES).map(([type, prefix]) => [prefix, type as RecordType]));
const RECORD = /^A#([^#]+)#([A-Z_]+)#([^#]+)$/;
const MARKER = /^A#([^#]+)#UNIQUE#([^#]+)#/;
/** The kinds of marker the entities declare (docs/data-model.md). */
const DECLARED_KINDS = new Set((await markerKinds()).map(({ value }) => value.kind));
const COUNTER = /^COUNT#A#([^#]+)#E#([^#]+)#/;
const HOLDER_COUNT = /^A#[^#]+#(FINGERPRINT_COUNT#|(LICENSE|MACHINE)#[^#]+#PROCESS_COUNT$)/;
const SEAT_COUNT = /^A#[^#]+#LICENSE#[^#]+#(MACHINE|CORE)_COUNT$/;
const REGISTER = /^A#[^#]+#[A-Z_]+#[^#]+#TOKENS$/;
const FINGERPRINT_ENTRY = /^A#[^#]+#MACHINES_BY_FINGERPRINT#/;
const SUBSCRIPTIONS = /^A#([^#]+)#E#([^#]+)#WEBHOOK_SUBSCRIPTIONS$/;
const ENTITLEMENT_SET = /^A#([^#]+)#(POLICY|LICENSE)#([^#]+)#ENTITLEMENTS$/;
const PURGE = /^A#([^#]+)#PURGE#([^#]+)$/;
const GLOBAL = '-';

/** Layout attributes: what a marker carries besides these are facts of its record. */
const MARKER_LAYOUT = new Set(['PK', 'SK', 'ref', 'ENVPK', 'componentsCounted']);
const COLLECTION_KEYS = ['GSI1PK', 'GSI2PK', 'GSI3PK', 'GSI4PK', 'GSI5PK'];

/** The parents a record of each type must have: attribute holding the id, and the type it names. */
const PARENTS: Partial<Record<RecordType, [attribute: string, type: RecordType][]>> = {
  policies: [['productId', 'products']],
  licenses: [
    ['policyId', 'policies'],
    ['productId', 'products'],
  ],
  machines: [
    ['licenseId', 'licenses'],
    ['policyId', 'policies'],
    ['productId', 'products'],
  ],
  components: [
    ['machineId', 'machines'],
    ['licenseId', 'licenses'],
    ['policyId', 'policies'],
    ['productId', 'products'],
  ],
  processes: [
    ['machineId', 'machines'],
    ['licenseId', 'licenses'],
    ['policyId', 'policies'],
    ['productId', 'products'],
  ],
};

const keyOf = (item: Key): Key => ({ PK: item.PK, SK: item.SK });
const id = (key: Key) => `${key.PK}|${key.SK}`;
const orNull = (value: unknown) => (value === undefined ? null : value);
const same = (a: unknown, b: unknown) => JSON.stringify(orNull(a)) === JSON.stringify(orNull(b));
const envOf = (item: Item) => (item.environmentId as string | null | undefined) ?? null;

/** The invariants over a set of items (the whole table, or one account's part of it). */
export function violationsIn(items: readonly Item[]): Violation[] {
  const violations: Violation[] = [];
  const report = (rule: string, key: Key, detail: string) => violations.push({ rule, key: keyOf(key), detail });
  const byKey = new Map(items.map((item) => [id(item), item]));
  const has = (key: Key) => byKey.has(id(key));
  const get = (key: Key) => byKey.get(id(key));

  const records = items.filter((item) => item.SK === '#' && RECORD.test(item.PK) && TYPE_OF_PREFIX.has(RECORD.exec(item.PK)?.[2] ?? ''));
  const pending = new Set(items.filter((item) => PURGE.test(item.PK)).map((item) => item.PK.replace(PURGE, 'A#$1#E#$2')));
  const purging = (item: Item) => typeof item.ENVPK === 'string' && pending.has(item.ENVPK);
  const environmentPurging = (accountId: string, environmentId: string | null) =>
    environmentId !== null && pending.has(`A#${accountId}#E#${environmentId}`);
  const live = records.filter((record) => !purging(record));

  checkMarkers(items, live, get, report, purging);
  checkCollectionCounters(items, records, report, environmentPurging);
  checkHolderCounts(items, records, report, pending, purging);
  checkParents(live, has, report, environmentPurging);
  checkLookups(items, records, live, has, get, report, purging);
  checkEntitlementSets(items, has, report, purging);
  return violations;
}

type Report = (rule: string, key: Key, detail: string) => void;

function checkMarkers(
  items: readonly Item[],
  live: readonly Item[],
  get: (key: Key) => Item | undefined,
  report: Report,
  purging: (item: Item) => boolean,
) {
  for (const record of live) {
    for (const pk of (record.markers as string[] | undefined) ?? []) {
      const marker = get({ PK: pk, SK: '#' });
      if (!marker) report('marker-missing', record, `its marker ${pk} does not exist`);
      else if (marker.ref !== record.PK) report('marker-missing', record, `its marker ${pk} names ${String(marker.ref)}`);
    }
  }
  for (const marker of items.filter((item) => MARKER.test(item.PK) && !purging(item))) {
    const kind = MARKER.exec(marker.PK)?.[2] ?? '';
    if (!DECLARED_KINDS.has(kind)) report('marker-kind', marker, `no entity declares its kind ${kind} (MARKER_KINDS)`);
    const record = get({ PK: String(marker.ref), SK: '#' });
    if (!record) {
      report('marker-orphan', marker, `it names ${String(marker.ref)}, which does not exist`);
      continue;
    }
    if (!((record.markers as string[] | undefined) ?? []).includes(marker.PK)) {
      report('marker-orphan', marker, `${record.PK} does not list it among its markers`);
      continue;
    }
    for (const [name, value] of Object.entries(marker)) {
      if (MARKER_LAYOUT.has(name)) continue;
      if (!same(value, record[name])) {
        report('marker-facts', marker, `it carries ${name} = ${JSON.stringify(value)}, its record holds ${JSON.stringify(record[name])}`);
      }
    }
  }
}

function checkCollectionCounters(
  items: readonly Item[],
  records: readonly Item[],
  report: Report,
  environmentPurging: (accountId: string, environmentId: string | null) => boolean,
) {
  const members = new Map<string, number>();
  for (const record of records) {
    for (const name of COLLECTION_KEYS) {
      const partition = record[name];
      if (typeof partition === 'string') members.set(partition, (members.get(partition) ?? 0) + 1);
    }
  }
  const counters = new Map(items.filter((item) => COUNTER.test(item.PK)).map((item) => [item.PK.slice('COUNT#'.length), item]));
  for (const partition of new Set([...members.keys(), ...counters.keys()])) {
    const [, accountId = '', environment = GLOBAL] = COUNTER.exec(`COUNT#${partition}`) ?? [];
    if (environmentPurging(accountId, environment === GLOBAL ? null : environment)) continue;
    const expected = members.get(partition) ?? 0;
    const counter = counters.get(partition);
    const n = Number(counter?.n ?? 0);
    if (n !== expected) {
      report('counter', counter ?? { PK: `COUNT#${partition}`, SK: '#' }, `it counts ${n}, the collection holds ${expected}`);
    }
  }
}

/**
 * Holder counts (what records list in `counted`) and seat counts (a license's machines and their
 * cores, from the machines holding a seat), each share included. A count touched by an
 * environment being purged (a share in it, or a member of it) waits for the purge to give it back.
 */
function checkHolderCounts(
  items: readonly Item[],
  records: readonly Item[],
  report: Report,
  pending: Set<string>,
  purging: (item: Item) => boolean,
) {
  const expected = new Map<string, { key: Key; n: number }>();
  const skipped = new Set<string>();
  const add = (key: Key, by: number) => {
    const entry = expected.get(id(key)) ?? { key, n: 0 };
    entry.n += by;
    expected.set(id(key), entry);
  };
  for (const record of records) {
    const counted = (record.counted as Key[] | undefined) ?? [];
    const seats =
      record.type === 'machines' && record.licenseEnvironmentId !== undefined ? seatCountsOf(record) : ([] as { key: Key; by: number }[]);
    for (const { key, by } of [...counted.map((key) => ({ key, by: 1 })), ...seats]) {
      add(key, by);
      if (purging(record)) skipped.add(key.PK);
    }
  }
  const counts = items.filter((item) => HOLDER_COUNT.test(item.PK) || SEAT_COUNT.test(item.PK));
  for (const count of counts) {
    const share = /^E#(.+)$/.exec(count.SK)?.[1];
    const accountId = /^A#([^#]+)#/.exec(count.PK)?.[1];
    if (share && pending.has(`A#${accountId}#E#${share}`)) skipped.add(count.PK);
    if (purging(count)) skipped.add(count.PK);
  }
  const found = new Map(counts.map((count) => [id(count), count]));
  for (const key of new Set([...expected.keys(), ...found.keys()])) {
    const count = found.get(key);
    const want = expected.get(key);
    const countKey = count ?? want?.key;
    if (!countKey || skipped.has(countKey.PK)) continue;
    const n = Number(count?.n ?? 0);
    const members = want?.n ?? 0;
    if (n !== members) report('holder-count', countKey, `it counts ${n}, its members make ${members}`);
  }
}

/** The seat counts a machine holding a seat is in: its license's machines and cores, and their shares outside the license's environment. */
function seatCountsOf(machine: Item): { key: Key; by: number }[] {
  const accountId = machine.accountId as string;
  const licenseId = machine.licenseId as string;
  const environmentId = envOf(machine);
  const elsewhere = environmentId !== ((machine.licenseEnvironmentId as string | null) ?? null);
  const cores = Number(machine.countedCores ?? 0);
  const counts = [
    { key: licenseMachineCountKey(accountId, licenseId), by: 1 },
    { key: licenseCoreCountKey(accountId, licenseId), by: cores },
  ];
  if (elsewhere) {
    counts.push({ key: licenseMachineCountKey(accountId, licenseId, environmentId), by: 1 });
    counts.push({ key: licenseCoreCountKey(accountId, licenseId, environmentId), by: cores });
  }
  return counts.filter((count) => count.by !== 0);
}

function checkParents(
  live: readonly Item[],
  has: (key: Key) => boolean,
  report: Report,
  environmentPurging: (accountId: string, environmentId: string | null) => boolean,
) {
  for (const record of live) {
    const accountId = record.accountId as string;
    const type = record.type as RecordType;
    const environmentId = envOf(record);
    if (
      environmentId !== null &&
      !environmentPurging(accountId, environmentId) &&
      !has(recordKey(accountId, 'environments', environmentId))
    ) {
      report('parent-missing', record, `its environment ${environmentId} does not exist`);
    }
    const parents = [...(PARENTS[type] ?? [])];
    if (type === 'tokens') parents.push(['bearerId', record.bearerType as RecordType]);
    for (const [attribute, parentType] of parents) {
      const parentId = record[attribute];
      if (typeof parentId !== 'string') report('parent-missing', record, `it names no ${attribute}`);
      else if (!has(recordKey(accountId, parentType, parentId)))
        report('parent-missing', record, `its ${attribute} ${parentId} does not exist`);
    }
  }
}

function checkLookups(
  items: readonly Item[],
  records: readonly Item[],
  live: readonly Item[],
  has: (key: Key) => boolean,
  get: (key: Key) => Item | undefined,
  report: Report,
  purging: (item: Item) => boolean,
) {
  const recordsByPk = new Map(records.map((record) => [record.PK, record]));
  const tokenOf = (accountId: unknown, tokenId: unknown) => recordsByPk.get(recordKey(String(accountId), 'tokens', String(tokenId)).PK);
  for (const token of live.filter((record) => record.type === 'tokens')) {
    if (!has(tokenLookupKey(String(token.digest))))
      report('token-lookup-missing', token, 'its lookup item does not exist: its value fails');
    const entry = bearerTokenEntryKey(
      token.accountId as string,
      token.bearerType as RecordType,
      token.bearerId as string,
      token.id as string,
    );
    if (!has(entry))
      report('token-entry-missing', token, `its bearer's register has no entry for it: revoking the bearer's tokens misses it`);
  }
  for (const lookup of items.filter((item) => item.PK.startsWith('TOKEN_DIGEST#') && !purging(item))) {
    const token = tokenOf(lookup.accountId, lookup.id);
    if (!token || `TOKEN_DIGEST#${String(token.digest)}` !== lookup.PK) {
      report('token-lookup-orphan', lookup, `its token ${String(lookup.id)} does not exist: a revoked token still authenticates`);
    }
  }
  for (const entry of items.filter((item) => REGISTER.test(item.PK) && item.SK.startsWith('TOKEN#') && !purging(item))) {
    const accountId = /^A#([^#]+)#/.exec(entry.PK)?.[1];
    if (!tokenOf(accountId, entry.tokenId)) report('token-entry-orphan', entry, `its token ${String(entry.tokenId)} does not exist`);
  }

  for (const machine of live.filter((record) => record.type === 'machines')) {
    const entry = machineFingerprintEntryKey(machine.accountId as string, digest(String(machine.fingerprint)), machine.id as string);
    if (!has(entry)) report('fingerprint-entry-missing', machine, 'it has no entry under its fingerprint');
  }
  for (const entry of items.filter((item) => FINGERPRINT_ENTRY.test(item.PK) && !purging(item))) {
    const accountId = /^A#([^#]+)#/.exec(entry.PK)?.[1] ?? '';
    const machine = get(recordKey(accountId, 'machines', String(entry.machineId)));
    if (!machine || entry.PK !== machineFingerprintEntryKey(accountId, digest(String(machine.fingerprint)), String(machine.id)).PK) {
      report('fingerprint-entry-orphan', entry, `its machine ${String(entry.machineId)} does not exist or holds another fingerprint`);
    }
  }

  for (const endpoint of live.filter((record) => record.type === 'webhook-endpoints')) {
    const subscriptions = get(subscriptionsKey(endpoint.accountId as string, envOf(endpoint)));
    const entry = subscriptions?.[`endpoint#${String(endpoint.id)}`] as Record<string, unknown> | undefined;
    if (!entry) report('subscription-missing', endpoint, "its environment's subscriptions item does not hold it: no change reaches it");
    else if (!['id', 'url', 'enabled', 'subscriptions'].every((name) => same(entry[name], endpoint[name]))) {
      report('subscription-stale', endpoint, `its subscriptions entry ${JSON.stringify(entry)} is not the endpoint as it is`);
    }
  }
  for (const subscriptions of items.filter((item) => SUBSCRIPTIONS.test(item.PK) && !purging(item))) {
    const [, accountId = ''] = SUBSCRIPTIONS.exec(subscriptions.PK) ?? [];
    for (const name of Object.keys(subscriptions).filter((attribute) => attribute.startsWith('endpoint#'))) {
      const endpointId = name.slice('endpoint#'.length);
      if (!has(recordKey(accountId, 'webhook-endpoints', endpointId))) {
        report('subscription-orphan', subscriptions, `it holds endpoint ${endpointId}, which does not exist`);
      }
    }
  }

  for (const account of items.filter((item) => /^ACCOUNT#[^#]+$/.test(item.PK))) {
    const marker = get({ PK: `ACCOUNT_SLUG#${String(account.slug).toLowerCase()}`, SK: '#' });
    if (marker?.accountId !== account.id) report('slug-marker', account, `its slug ${String(account.slug)} does not name it`);
  }
  for (const marker of items.filter((item) => item.PK.startsWith('ACCOUNT_SLUG#'))) {
    if (!has({ PK: `ACCOUNT#${String(marker.accountId)}`, SK: '#' }))
      report('slug-marker', marker, `its account ${String(marker.accountId)} does not exist`);
  }
}

/**
 * An entitlement set's `n` is its attachments; each attachment of a holder that exists names an
 * entitlement that exists and has its pointer; a tombstone names an entitlement that is gone (one
 * that exists would be refused to every attach). An entitlement marked as being removed is a
 * removal cut short (its DELETE, sent again, finishes it).
 */
function checkEntitlementSets(items: readonly Item[], has: (key: Key) => boolean, report: Report, purging: (item: Item) => boolean) {
  for (const set of items.filter((item) => ENTITLEMENT_SET.test(item.PK) && !purging(item))) {
    const [, accountId = '', prefix = '', holderId = ''] = ENTITLEMENT_SET.exec(set.PK) ?? [];
    const holder = prefix === 'POLICY' ? 'policies' : 'licenses';
    const attached = Object.keys(set)
      .filter((name) => name.startsWith('entitlement#'))
      .map((name) => name.slice('entitlement#'.length));
    if (Number(set.n ?? 0) !== attached.length)
      report('entitlement-set-count', set, `it counts ${String(set.n)}, it holds ${attached.length}`);
    // The sets of removed holders are left behind on purpose (docs/data-model.md).
    if (!has(recordKey(accountId, holder, holderId))) continue;
    for (const entitlementId of attached) {
      if (!has(recordKey(accountId, 'entitlements', entitlementId)))
        report('parent-missing', set, `it holds entitlement ${entitlementId}, which does not exist`);
      if (!has(entitlementHolderKey(accountId, entitlementId, holder, holderId))) {
        report('entitlement-pointer-missing', set, `its attachment of ${entitlementId} has no pointer: the entitlement's delete misses it`);
      }
    }
    for (const name of Object.keys(set).filter((attribute) => attribute.startsWith('gone#'))) {
      const entitlementId = name.slice('gone#'.length);
      if (has(recordKey(accountId, 'entitlements', entitlementId)))
        report('entitlement-tombstone-live', set, `it has a tombstone of entitlement ${entitlementId}, which exists: no attach takes it`);
    }
  }
  for (const entitlement of items.filter((item) => item.type === 'entitlements' && item.SK === '#' && item.removing)) {
    report('entitlement-removal-unfinished', entitlement, 'it is marked as being removed: its DELETE was cut short');
  }
}
