/**
 * Lists: a collection is one GSI partition per readable environment (two inside a SHARED
 * environment: its own and the global one), merged newest first. Counts come from the
 * collection counters, never from reading the collection.
 *
 * - A collection index holds each record's keys and the ids lists filter on, not the record
 *   (shared/store/table.ts): a page is located on the index, then its records are read from the
 *   table by their keys, in one BatchGetItem with whatever the caller reads beside them.
 * - page[number]: skips the earlier pages on the index (a Query is charged by the size of the
 *   index entries it reads, whatever it returns: here small ones), then locates the page just
 *   below the last key skipped.
 * - page[cursor]: the cursor is the sort key of the last record shown; every partition is read
 *   from just below it, so a page costs the same at any depth.
 *
 * Records that hang on a removal under way (removals.ts) are left out of their page at once; the
 * count counts them until the cascades worker has deleted them.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, getTable } from './client.ts';
import type { AccessPattern } from './data-model.ts';
import {
  collectionKeys,
  collectionName,
  collectionPartition,
  collectionSortKey,
  counterKey,
  indexOver,
  type Key,
  keyName,
  type RecordType,
} from './keys.ts';
import { readItems } from './read-ahead.ts';
import { type Item, itemsAt, type RecordOf, type StoredRecord, toRecord } from './records.ts';
import { withoutRemoved } from './removals.ts';
import { readableOf, type Scope } from './scope.ts';
import { tableDefinition } from './table.ts';
import type { Parent } from './transaction.ts';

export type PageRequest = { mode: 'number'; number: number; size: number } | { mode: 'cursor'; cursor: string | null; size: number };

export interface Page<T> {
  records: T[];
  /** The items read beside the page's records (`ListOptions.beside`), those that exist. */
  beside?: Item[];
  /** Records in the whole collection the scope can see. */
  count: number;
  /** Cursor mode only: where the next page starts, or null after the last page. */
  nextCursor?: string | null;
}

/**
 * Which collection to list: every record of a type, those under one parent (slot = its GSI),
 * or those under any of several parents of one slot (a filter given several values), merged
 * newest first like the partitions of a SHARED environment.
 */
export interface CollectionRef<K extends RecordType = RecordType> {
  type: K;
  parent?: Parent & { slot: number };
  /** Records under any of several parents in one slot (e.g. events of several kinds), merged newest first. */
  anyParent?: { slot: number; parents: readonly Parent[] };
  /**
   * Equality conditions on record attributes, applied as a FilterExpression over this one
   * partition (never over a whole type): choose the most selective parent as the partition.
   * The count is then read from the partition itself (a COUNT query), so it costs what the
   * partition holds, not what the account holds.
   */
  where?: Record<string, string>;
  /**
   * A second collection whose entries stand for records of `type` (a user's attachments, each
   * standing for a license: shared/resources/license-users/): merged in, each entry read as the
   * record `locate` names. Its entries sort as the records they stand for, so the two merge
   * newest first and a record in both is shown once.
   */
  pointers?: Pointers;
}

export interface Pointers {
  type: RecordType;
  parent: Parent & { slot: number };
  locate: (entry: Item) => Key;
}

/** One partition a list reads, and how its entries name their records. */
interface Source {
  index: string;
  partition: string;
  locate: (entry: Item) => Key;
}

/** What a list reads beside its page's records, in the same BatchGetItem, and how. */
export interface ListOptions {
  /** The keys to read for a record, from its index entry (which holds the ids lists filter on). */
  beside?: (entry: Item) => Key[];
  /**
   * Read the page's records strongly consistently, for a caller that acts on them (a sweep walking
   * a policy's machines): else they are read as the index that located them is, eventually, unless
   * the list's counters come with them (a count must count the client's own last write).
   */
  consistent?: boolean;
}

/** The partitions (one per readable environment and parent) a collection is read from, with its pointers'. */
function sourcesOf(scope: Scope, ref: CollectionRef): Source[] {
  const index = collectionKeys(ref.anyParent?.slot ?? ref.parent?.slot);
  const names = ref.anyParent
    ? [...new Set(ref.anyParent.parents.map((parent) => collectionName(ref.type, parent)))]
    : [collectionName(ref.type, ref.parent)];
  const environments = readableOf(scope, ref.type);
  const sources = environments.flatMap((environmentId) =>
    names.map((name) => ({ index, partition: collectionPartition(scope.accountId, environmentId, name), locate: keyOf })),
  );
  const { pointers } = ref;
  if (!pointers) return sources;
  const pointerIndex = collectionKeys(pointers.parent.slot);
  const name = collectionName(pointers.type, pointers.parent);
  return [
    ...sources,
    ...environments.map((environmentId) => ({
      index: pointerIndex,
      partition: collectionPartition(scope.accountId, environmentId, name),
      locate: pointers.locate,
    })),
  ];
}

/** The newest first stream of every source's entries below `before` that meet `where`. */
const rowsOf = (sources: readonly Source[], before: string | undefined, wanted: number, where: Record<string, string> | undefined) =>
  merge(sources.map((source) => read(source, before, wanted, false, conditions(source.index, where))));

/** Whether the collection holds any record meeting `where`: reads until it finds one, counts nothing. */
export async function anyInCollection(scope: Scope, ref: CollectionRef): Promise<boolean> {
  return (await take(rowsOf(sourcesOf(scope, ref), undefined, 1, ref.where), 1)).length > 0;
}

export async function listCollection<K extends RecordType>(
  scope: Scope,
  ref: CollectionRef<K>,
  page: PageRequest,
  options: ListOptions = {},
): Promise<Page<RecordOf<K>>> {
  const sources = sourcesOf(scope, ref);
  const filtered = Object.keys(ref.where ?? {}).length > 0;
  // The count: a filtered list counts its partitions (COUNT queries, alongside the page); else its
  // counters, read ahead with the request or read with the page's records.
  const counting = filtered ? countMatching(sources, ref.where) : undefined;
  // If the page read fails first, this must not become an unhandled rejection.
  counting?.catch(() => {});
  const counters = filtered ? [] : sources.map((source) => counterKey(source.partition));
  const unread = counters.filter((key) => !scope.readAhead?.has(key));
  const readAhead = await readItems(
    scope.readAhead,
    counters.filter((key) => scope.readAhead?.has(key)),
  );
  const counterNames = new Set(counters.map(keyName));
  const isCounter = (item: Item) => counterNames.has(keyName(item));
  const countOf = (items: Item[]) => items.filter(isCounter).reduce((sum, counter) => sum + Number(counter.n ?? 0), 0);

  let before: string | undefined;
  if (page.mode === 'cursor') {
    before = page.cursor ? decodeCursor(page.cursor) : undefined;
  } else if (page.number > 1) {
    const skipped = await take(
      merge(sources.map((source) => read(source, undefined, (page.number - 1) * page.size, true, conditions(source.index, ref.where)))),
      (page.number - 1) * page.size,
    );
    before = skipped.at(-1)?.sortKey;
    if (skipped.length < (page.number - 1) * page.size) {
      return { records: [], count: counting ? await counting : countOf([...readAhead, ...(await itemsAt(unread))]) };
    }
  }
  const wanted = page.mode === 'cursor' ? page.size + 1 : page.size;
  const rows = await take(rowsOf(sources, before, wanted, ref.where), wanted);
  const shown = rows.slice(0, page.size);
  const keys = shown.map((row) => row.key);
  const { beside } = options;
  const besideKeys = beside ? shown.flatMap((row) => beside(row.item)) : [];
  // One BatchGetItem: the page's records, what is shown beside them and the counters not read ahead.
  const fetched = await itemsAt([...keys, ...besideKeys, ...unread], options.consistent || unread.length > 0);
  const mine = new Set(keys.map(keyName));
  const isRecord = (item: Item) => mine.has(keyName(item));
  // Records under a removal under way are gone already, though the worker has yet to delete them (removals.ts).
  const records = await withoutRemoved(
    scope,
    fetched.filter(isRecord).map((item) => toRecord(ref.type, item)),
  );
  const result: Page<RecordOf<K>> = { records, count: counting ? await counting : countOf([...readAhead, ...fetched]) };
  if (beside) result.beside = fetched.filter((item) => !isRecord(item) && !isCounter(item));
  if (page.mode === 'cursor') result.nextCursor = nextCursorAfter(shown.at(-1)?.sortKey, rows.length > page.size);
  return result;
}

interface Filter {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

function conditions(index: string, where: Record<string, string> | undefined): Filter | undefined {
  const entries = Object.entries(where ?? {});
  if (entries.length === 0) return undefined;
  // The index holds only these: a condition on another attribute would match nothing, silently.
  const held: readonly string[] = tableDefinition.indexes.find((candidate) => candidate.name === indexOver(index))?.include ?? [];
  const unheld = entries.map(([name]) => name).filter((name) => !held.includes(name));
  if (unheld.length) throw new Error(`A list cannot filter on ${unheld.join(', ')}: ${indexOver(index)} does not hold it`);
  return {
    expression: entries.map((_, i) => `#w${i} = :w${i}`).join(' AND '),
    names: Object.fromEntries(entries.map(([name], i) => [`#w${i}`, name])),
    values: Object.fromEntries(entries.map(([, value], i) => [`:w${i}`, value])),
  };
}

/** Counts the members of filtered partitions by reading them (COUNT), page after page. */
async function countMatching(sources: readonly Source[], where: Record<string, string> | undefined): Promise<number> {
  let total = 0;
  for (const { index, partition } of sources) {
    const filter = conditions(index, where);
    if (!filter) throw new Error('A count by reading is for filtered partitions');
    let start: Record<string, unknown> | undefined;
    do {
      const response = await db().send(
        new QueryCommand({
          TableName: getTable(),
          IndexName: indexOver(index),
          KeyConditionExpression: '#pk = :pk',
          FilterExpression: filter.expression,
          ExpressionAttributeNames: { '#pk': `${index}PK`, ...filter.names },
          ExpressionAttributeValues: { ':pk': partition, ...filter.values },
          Select: 'COUNT',
          ExclusiveStartKey: start,
        }),
      );
      total += response.Count ?? 0;
      start = response.LastEvaluatedKey;
    } while (start);
  }
  return total;
}

/**
 * A page of records already gathered in memory (a small set derived from another collection,
 * e.g. the products of a user's licenses), with the same page and cursor semantics.
 */
export function pageOf<T extends StoredRecord>(all: T[], page: PageRequest): Page<T> {
  const sortKey = (record: T) => collectionSortKey(record.created, record.id);
  const sorted = [...all].sort((a, b) => sortKey(b).localeCompare(sortKey(a)));
  if (page.mode === 'number') {
    return { records: sorted.slice((page.number - 1) * page.size, page.number * page.size), count: sorted.length };
  }
  const before = page.cursor ? decodeCursor(page.cursor) : undefined;
  const rest = before ? sorted.filter((record) => sortKey(record) < before) : sorted;
  const records = rest.slice(0, page.size);
  const last = records.at(-1);
  return { records, count: sorted.length, nextCursor: nextCursorAfter(last && sortKey(last), rest.length > page.size) };
}

/** The cursor of the page after one whose last record has `lastShown`; null when nothing follows. */
const nextCursorAfter = (lastShown: string | undefined, more: boolean): string | null =>
  more && lastShown !== undefined ? encodeCursor(lastShown) : null;

/** The empty page: a list whose filters cannot match anything. */
export const emptyPage = <T>(page: PageRequest): Page<T> => ({
  records: [],
  count: 0,
  ...(page.mode === 'cursor' ? { nextCursor: null } : {}),
});

/** A record's place in its collection; a keys-only read gives no more. */
interface Row {
  sortKey: string;
}

/** A record's entry in a collection index: its keys and the ids lists filter on, and the key of the record it stands for. */
interface ItemRow extends Row {
  item: Item;
  key: Key;
}

/** The table key of an index entry's record. */
const keyOf = (entry: Item): Key => ({ PK: entry.PK, SK: entry.SK });

/**
 * The records a collection index's entries locate, in their order, those that still exist: the
 * index holds their keys (shared/store/table.ts), the table the records. Strongly consistent
 * unless `consistent` is false.
 */
export const recordsAt = (entries: readonly Item[], consistent = true): Promise<Item[]> => itemsAt(entries.map(keyOf), consistent);

/**
 * One partition of the index over `index` (collection keys), newest first, below `before`.
 * keysOnly returns only what skipping needs.
 */
function read(source: Source, before: string | undefined, wanted: number, keysOnly: false, filter?: Filter): AsyncGenerator<ItemRow>;
function read(source: Source, before: string | undefined, wanted: number, keysOnly: true, filter?: Filter): AsyncGenerator<Row>;
async function* read(
  { index, partition, locate }: Source,
  before: string | undefined,
  wanted: number,
  keysOnly: boolean,
  filter?: Filter,
): AsyncGenerator<Row | ItemRow> {
  let remaining = wanted;
  let start: Record<string, unknown> | undefined;
  do {
    const response = await db().send(
      new QueryCommand({
        TableName: getTable(),
        IndexName: indexOver(index),
        KeyConditionExpression: before ? '#pk = :pk AND #sk < :before' : '#pk = :pk',
        ExpressionAttributeNames: { '#pk': `${index}PK`, ...(before || keysOnly ? { '#sk': `${index}SK` } : {}), ...filter?.names },
        ExpressionAttributeValues: { ...(before ? { ':pk': partition, ':before': before } : { ':pk': partition }), ...filter?.values },
        ...(filter ? { FilterExpression: filter.expression } : {}),
        ...(keysOnly ? { ProjectionExpression: '#sk' } : {}),
        ScanIndexForward: false,
        ExclusiveStartKey: start,
        // DynamoDB limits the items it examines, before the filter: a filtered read asks a whole
        // page at a time, or finding one match among many would take one request per item.
        Limit: filter ? 101 : Math.min(remaining, keysOnly ? 5000 : 101),
      }),
    );
    for (const item of (response.Items ?? []) as Item[]) {
      const sortKey = item[`${index}SK`] as string;
      yield keysOnly ? { sortKey } : { sortKey, item, key: locate(item) };
    }
    remaining -= response.Items?.length ?? 0;
    start = response.LastEvaluatedKey;
  } while (start && remaining > 0);
}

/**
 * Every item of one collection partition (not a page: for small collections such as an
 * environment's webhook endpoints, or the children a cascade removes). `index` names the
 * collection keys of the partition (`GSI2`), whose records are then read from the table; without
 * one, the partition is the table's own, read strongly consistently (e.g. a bearer's token register).
 */
export async function partitionItems(index: string | undefined, partition: string): Promise<Item[]> {
  const keyName = index ? `${index}PK` : 'PK';
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const response = await db().send(
      new QueryCommand({
        TableName: getTable(),
        ...(index ? { IndexName: indexOver(index) } : { ConsistentRead: true }),
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': keyName },
        ExpressionAttributeValues: { ':pk': partition },
        ExclusiveStartKey: start,
      }),
    );
    items.push(...((response.Items ?? []) as Item[]));
    start = response.LastEvaluatedKey;
  } while (start);
  return index ? recordsAt(items) : items;
}

/**
 * Merges partitions that are each newest first into one stream, newest first. A record in two of
 * them (a license its owner is also attached to) has one sort key in both, and is given once.
 */
async function* merge<R extends Row>(streams: AsyncGenerator<R>[]): AsyncGenerator<R> {
  const [only, ...others] = streams;
  if (only && others.length === 0) return yield* only;
  // Each stream with the row it offers next (none once it is done).
  const sources = await Promise.all(streams.map(async (stream) => ({ stream, head: await stream.next() })));
  let last: string | undefined;
  for (;;) {
    let newest: { source: (typeof sources)[number]; row: R } | undefined;
    for (const source of sources) {
      const { head } = source;
      if (!head.done && (!newest || head.value.sortKey > newest.row.sortKey)) newest = { source, row: head.value };
    }
    if (!newest) return;
    if (newest.row.sortKey !== last) yield newest.row;
    last = newest.row.sortKey;
    newest.source.head = await newest.source.stream.next();
  }
}

async function take<R extends Row>(stream: AsyncGenerator<R>, count: number): Promise<R[]> {
  const rows: R[] = [];
  if (count <= 0) return rows;
  for await (const row of stream) {
    rows.push(row);
    if (rows.length >= count) break;
  }
  return rows;
}

const encodeCursor = (sortKey: string) => Buffer.from(sortKey, 'utf8').toString('base64url');

const decodeCursor = (cursor: string) => Buffer.from(cursor, 'base64url').toString('utf8');

/** A cursor is the base64url of a collection sort key: `<ISO timestamp>#<uuid>`. */
export const isCursor = (cursor: string) =>
  cursor.length <= 100 &&
  /^[A-Za-z0-9_-]*$/.test(cursor) &&
  /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#[0-9a-f-]{36}$/.test(decodeCursor(cursor));

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 7,
    name: 'List a type, newest first',
    operation: 'Query (backwards)',
    index: 'GSI1',
    key: "`GSI1PK = A#<acct>#E#<env>#<TYPE>` (two partitions merged inside a SHARED environment, except for tokens, webhook endpoints and webhook events: the environment's own only)",
    usedBy: 'users, tokens, environments lists',
    tests: ['store/data-model'],
  },
  {
    n: 9,
    name: 'Count a collection',
    operation: 'BatchGetItem (read ahead for `GET /<type>`)',
    index: 'table',
    key: '`PK = COUNT#<collection partition>`',
    usedBy: "every list's `links.meta`",
    tests: ['store/data-model'],
  },
  {
    n: 10,
    name: 'Keyset page',
    operation:
      "Query (backwards) of the index entries, then BatchGetItem of the page's records (and what the list reads beside them: a machine's or a license's policy)",
    index: 'GSI1–GSI5',
    key: 'partition as 7/8 and 27–32, and `SK < <cursor>`',
    usedBy: '`page[cursor]`; the page after a `page[number]` skip',
    tests: ['store/data-model'],
  },
  {
    n: 11,
    name: 'Skip to `page[number]`',
    operation: 'Query (backwards) of the index entries, projection of the sort key, then pattern 10 below the last key skipped',
    index: 'GSI1–GSI5 (their `_SLIM` indexes: keys and the filtered ids, about 300–450 bytes an entry)',
    key: 'as 7/8 and 27–32',
    usedBy: '`page[number]` > 1',
    tests: ['store/data-model'],
  },
];
