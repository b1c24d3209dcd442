/**
 * Records as the domain sees them, and how they are read. A stored item is a record plus its
 * keys, collection memberships, the uniqueness markers it holds and the holder counts it is in;
 * the item describes itself, so deletes, cascades and purges need nothing but the item.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { BatchGetItemCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { db, plainDb, getTable as table } from './client.ts';
import type { AccessPattern } from './data-model.ts';
import { type Key, keyName, type RecordType, recordKey } from './keys.ts';
import { readItems } from './read-ahead.ts';
import type { RecordOf } from './record-types.ts';
import { goneWithRemoval, withoutRemoved } from './removals.ts';
import { canRead, type Scope } from './scope.ts';

export interface StoredRecord {
  type: RecordType;
  id: string;
  accountId: string;
  environmentId: string | null;
  created: string;
  updated: string;
}

/** Attributes that belong to the storage layout, never to the record. */
const LAYOUT = new Set([
  'PK',
  'SK',
  'ENVPK',
  'markers',
  'counted',
  'expiresAt',
  'GSI1PK',
  'GSI1SK',
  'GSI2PK',
  'GSI2SK',
  'GSI3PK',
  'GSI3SK',
  'GSI4PK',
  'GSI4SK',
  'GSI5PK',
  'GSI5SK',
  'DUEPK',
  'DUESK',
]);

/** Any stored item: a record's, a marker, a count, a register... */
export type Item = Record<string, unknown> & Key;

/**
 * A record's stored item: the record's attributes with its keys and layout. JSON_TEXT attributes
 * are as the table keeps them (text), so only toRecord reads them.
 */
export type StoredItem<R extends StoredRecord = StoredRecord> = Item & {
  [P in keyof R]: P extends JsonText ? unknown : R[P];
} & { markers?: string[] };

export type { RecordOf };

/**
 * What places a record in the table: its keys, type, id, account and environment. A stored item
 * of a record is one; so is a removed record as its key and place tell it (a cascade's root).
 */
export type PlacedItem = Item & Pick<StoredRecord, 'type' | 'id' | 'accountId' | 'environmentId'>;

/**
 * Attributes stored as JSON text rather than as DynamoDB maps. `metadata` is any JSON the
 * client sends, and a map would refuse some of it (numbers below 1e-130 or above 9.99e125 in
 * magnitude, more than 38 digits, nesting past 32 levels) or garble it in the SDK's
 * marshaller (a `constructor` key); as text it comes back exactly as JSON.parse read it.
 */
const JSON_TEXT: ReadonlySet<string> = new Set<JsonText>(['metadata']);
type JsonText = 'metadata';

/**
 * Text stored deflated (a binary attribute): a webhook event's `payload`, the JSON document of the
 * change, a kilobyte or two that deflates to about a third. It is written once per endpoint and
 * rewritten with every delivery attempt's claim and outcome, so its size is paid in write units
 * (one per KB, twice in a transaction) again and again; deflated, an event fits in 2 KB.
 */
const DEFLATED_TEXT: ReadonlySet<string> = new Set(['payload']);

/** The last text deflated, and its bytes: a change's payload is written once for each endpoint. */
let lastDeflated: { text: string; bytes: Uint8Array } | undefined;

function deflated(text: string): Uint8Array {
  if (lastDeflated?.text !== text) lastDeflated = { text, bytes: new Uint8Array(deflateRawSync(text)) };
  return lastDeflated.bytes;
}

/** Attributes as the table stores them: JSON_TEXT ones as text, DEFLATED_TEXT ones deflated. Everything else as is. */
export function toStored<T extends object>(attributes: T): T {
  const stored = { ...attributes } as Record<string, unknown>;
  for (const name of JSON_TEXT) {
    const value = stored[name];
    if (value !== null && value !== undefined && typeof value !== 'string') stored[name] = JSON.stringify(value);
  }
  for (const name of DEFLATED_TEXT) {
    const value = stored[name];
    if (typeof value === 'string') stored[name] = deflated(value);
  }
  return stored as T;
}

/** A stored attribute's value as the record holds it (text kept as text by items written before stays so). */
function fromStored(name: string, value: unknown): unknown {
  if (JSON_TEXT.has(name) && typeof value === 'string') return JSON.parse(value);
  if (DEFLATED_TEXT.has(name) && value instanceof Uint8Array) return inflateRawSync(value).toString('utf8');
  return value;
}

/**
 * What an item holds without its layout, JSON_TEXT attributes parsed, as `T`: for the entity.ts
 * that reads an item of its own that is no record type's (an account, a token lookup). A record
 * is read with toRecord, typed by its type.
 */
export function attributesOf<T>(item: Record<string, unknown>): T {
  const record: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) {
    if (LAYOUT.has(name)) continue;
    // Items written before metadata was text hold a map, before payloads were deflated text: given back as is.
    record[name] = fromStored(name, value);
  }
  return record as T;
}

/** The record of `type` an item holds (read by its key, or handed back by a transaction on it). */
export const toRecord = <K extends RecordType>(_type: K, item: Record<string, unknown>): RecordOf<K> => attributesOf<RecordOf<K>>(item);

/** The stored item of a record of `type` (one read by its key, or handed back by a transaction on it). */
export const itemOf = <K extends RecordType>(_type: K, item: Item): StoredItem<RecordOf<K>> => item as StoredItem<RecordOf<K>>;

/** `item` as the stored item of a record of `type` if it is one (undefined: absent, or of another type). */
export const itemOfType = <K extends RecordType>(type: K, item: Item | undefined): StoredItem<RecordOf<K>> | undefined =>
  item?.type === type ? itemOf(type, item) : undefined;

/** The stored item of the record of `type` with `id` in the account, read by its key (undefined: none). */
export async function getRecordItem<K extends RecordType>(
  accountId: string,
  type: K,
  id: string,
): Promise<StoredItem<RecordOf<K>> | undefined> {
  const item = await getItem(recordKey(accountId, type, id));
  return item && itemOf(type, item);
}

/** The stored items of the records of `type` among `ids` in the account that exist, read by their keys. */
export async function getRecordItems<K extends RecordType>(
  accountId: string,
  type: K,
  ids: readonly string[],
): Promise<StoredItem<RecordOf<K>>[]> {
  return (await getItems(ids.map((id) => recordKey(accountId, type, id)))).map((item) => itemOf(type, item));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

/** Reads one item by key, strongly consistent so a write is visible to the next request. */
export async function getItem(key: Key): Promise<Item | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }));
  return Item as Item | undefined;
}

/**
 * The stored item of a record the scope may read, or undefined: a record of another account,
 * of an environment out of reach, under a removal under way, or an id that is no UUID is simply
 * not found.
 */
export async function getVisibleItem<K extends RecordType>(
  scope: Scope,
  type: K,
  id: string,
): Promise<StoredItem<RecordOf<K>> | undefined> {
  if (!isUuid(id)) return undefined;
  const key = recordKey(scope.accountId, type, id.toLowerCase());
  const found = scope.readAhead?.has(key) ? scope.readAhead.take(key) : await getItem(key);
  const item = found && itemOf(type, found);
  if (!item || !readable(scope, type, item)) return undefined;
  // A record under a removal under way is gone already (removals.ts).
  return (await goneWithRemoval(scope, item)) ? undefined : item;
}

/** Whether the scope reads a record of `type`: of its account, in an environment it reads (scope.ts). */
const readable = (scope: Scope, type: RecordType, item: StoredItem): boolean =>
  item.accountId === scope.accountId && canRead(scope, type, item.environmentId ?? null);

/**
 * Those of `items` (records of `type` read by their keys) the scope may read: what getVisibleItem
 * applies to one, so a record of another account, of an environment out of reach or under a
 * removal under way is left out.
 */
export async function visibleItems<K extends RecordType>(
  scope: Scope,
  type: K,
  items: readonly Item[],
): Promise<StoredItem<RecordOf<K>>[]> {
  return withoutRemoved(
    scope,
    items.map((item) => itemOf(type, item)).filter((item) => readable(scope, type, item)),
  );
}

/**
 * The records of `type` among `ids` the scope may read (getVisibleItem's for each): one
 * BatchGetItem per 100, what the request read ahead taken from there. An id that is no UUID
 * names nothing.
 */
export async function getVisibleItems<K extends RecordType>(
  scope: Scope,
  type: K,
  ids: readonly string[],
): Promise<StoredItem<RecordOf<K>>[]> {
  const keys = [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))].map((id) => recordKey(scope.accountId, type, id));
  return keys.length ? visibleItems(scope, type, await readItems(scope.readAhead, keys)) : [];
}

export async function getVisibleRecords<K extends RecordType>(scope: Scope, type: K, ids: readonly string[]): Promise<RecordOf<K>[]> {
  return (await getVisibleItems(scope, type, ids)).map((item) => toRecord(type, item));
}

export const recordKeyOf = (record: StoredRecord): Key => recordKey(record.accountId, record.type, record.id);

export async function getRecord<K extends RecordType>(scope: Scope, type: K, id: string): Promise<RecordOf<K> | undefined> {
  const item = await getVisibleItem(scope, type, id);
  return item && toRecord(type, item);
}

/** BatchGetItem takes at most this many keys. */
const BATCH_GET_MAX = 100;

/** Reads items by key, 100 per request, retrying the keys DynamoDB leaves unprocessed; strongly consistent unless `consistent` is false. */
export async function getItems(keys: Key[], consistent = true): Promise<Item[]> {
  if (keys.length > BATCH_GET_MAX) {
    const batches: Key[][] = [];
    for (let i = 0; i < keys.length; i += BATCH_GET_MAX) batches.push(keys.slice(i, i + BATCH_GET_MAX));
    return (await Promise.all(batches.map((batch) => getItems(batch, consistent)))).flat();
  }
  const found: Item[] = [];
  let pending: Key[] = keys;
  for (let attempt = 0; pending.length > 0; attempt++) {
    const { Responses, UnprocessedKeys } = await plainDb().send(
      new BatchGetItemCommand({ RequestItems: { [table()]: { Keys: pending.map((key) => marshall(key)), ConsistentRead: consistent } } }),
    );
    found.push(...(Responses?.[table()] ?? []).map((item) => unmarshall(item) as Item));
    pending = (UnprocessedKeys?.[table()]?.Keys ?? []).map((key) => unmarshall(key) as Key);
    if (pending.length > 0) await backoff(attempt);
  }
  return found;
}

/**
 * The items at `keys`, in their order, those that exist (an index entry may outlive its record
 * for a moment): what follows a Query of an index that holds keys rather than records. A list's
 * page may be read eventually consistently (`consistent` false: half the read units), as the
 * index that located it is (shared/store/paging.ts says when); what acts on what it reads (a
 * cascade) reads strongly consistently.
 */
export async function itemsAt(keys: readonly Key[], consistent = true): Promise<Item[]> {
  const unique = [...new Map(keys.map((key) => [keyName(key), key])).values()];
  const found = new Map((unique.length ? await getItems(unique, consistent) : []).map((item) => [keyName(item), item]));
  return keys.flatMap((key) => found.get(keyName(key)) ?? []);
}

/** Records to read at once, by the name the caller gives each: its type and id (none: not read). */
type Named = Readonly<Record<string, readonly [RecordType, string | null | undefined]>>;

/**
 * The records `named` names, read in one BatchGetItem (getItems), each as the stored item of its
 * type under its name, or undefined when it has no id or no longer exists.
 */
export async function getNamedRecordItems<const N extends Named>(
  accountId: string,
  named: N,
): Promise<{ [P in keyof N]: StoredItem<RecordOf<N[P][0]>> | undefined }> {
  const keys = new Map<string, Key>();
  for (const [type, id] of Object.values(named)) if (id) keys.set(recordKey(accountId, type, id).PK, recordKey(accountId, type, id));
  const found = new Map((await getItems([...keys.values()])).map((item) => [item.PK, item]));
  const entries = Object.entries(named).map(([name, [type, id]]) => [
    name,
    id ? itemOfType(type, found.get(recordKey(accountId, type, id).PK)) : undefined,
  ]);
  return Object.fromEntries(entries) as { [P in keyof N]: StoredItem<RecordOf<N[P][0]>> | undefined };
}

/** Those of the records `items` that still exist, as they are now: read again by their keys (getItems). */
export async function readAgain(items: readonly PlacedItem[]): Promise<StoredItem[]> {
  const types = new Map(items.map((item) => [item.PK, item.type]));
  return (await getItems(items.map(({ PK, SK }) => ({ PK, SK })))).flatMap((item) => {
    const type = types.get(item.PK);
    return type ? [itemOf(type, item)] : [];
  });
}

/** Items one BatchWriteItem deletes at most, and such requests kept in flight at once. */
const BATCH_WRITE_MAX = 25;
const DELETES_IN_FLIGHT = 8;

/**
 * Deletes `keys` outright (an absent item is no error), 25 to a BatchWriteItem, eight requests in
 * flight, retrying what DynamoDB leaves unprocessed: for work that owns what it deletes (an
 * environment's purge), at a plain write's cost.
 */
export async function deleteItems(keys: readonly Key[]): Promise<void> {
  const batches: Key[][] = [];
  for (let i = 0; i < keys.length; i += BATCH_WRITE_MAX) batches.push(keys.slice(i, i + BATCH_WRITE_MAX));
  let next = 0;
  const sender = async () => {
    for (let batch = batches[next++]; batch; batch = batches[next++]) await deleteBatch(batch);
  };
  await Promise.all(Array.from({ length: Math.min(DELETES_IN_FLIGHT, batches.length) }, sender));
}

async function deleteBatch(keys: Key[]): Promise<void> {
  let requests = keys.map((Key) => ({ DeleteRequest: { Key } }));
  for (let attempt = 0; requests.length > 0; attempt++) {
    const { UnprocessedItems } = await db().send(new BatchWriteCommand({ RequestItems: { [table()]: requests } }));
    requests = (UnprocessedItems?.[table()] ?? []) as typeof requests;
    if (requests.length > 0) await backoff(attempt);
  }
}

export const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.min(1000, 2 ** attempt * 10) * (0.5 + Math.random())));

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 3,
    name: 'Record by id',
    operation: 'BatchGetItem (read ahead when the path names it), else GetItem (consistent)',
    index: 'table',
    key: '`PK = A#<acct>#<TYPE>#<id>`',
    usedBy: 'every retrieve/update/delete (`getVisibleItem`)',
    tests: ['store/data-model'],
  },
];
