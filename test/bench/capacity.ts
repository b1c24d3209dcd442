/**
 * The write units AWS bills for a write, computed from DynamoDB's published rules, because
 * DynamoDB Local's own report is wrong for transactions (two small Puts in one TransactWriteItems
 * report 2 units, not 4; an Update or a ConditionCheck beside a Put reports nothing).
 *
 * The rules (DynamoDB developer guide: item sizes, capacity unit consumption, transactions,
 * global secondary indexes):
 * - an item's size is the UTF-8 length of each attribute's name plus its value's size;
 * - a Put, Update or Delete costs one unit per KB (rounded up) of the larger of the item before
 *   and after it; in a transaction, twice that;
 * - a ConditionCheck writes nothing and reads the item: two read units per 4 KB in a transaction;
 * - each index the item is in, before or after, is written apart, at the standard rate (an index
 *   is brought up to date after the table's write, outside the transaction): nothing when the
 *   projected entry is unchanged, one write of the new entry when only its projected attributes
 *   changed, a delete of the old entry and a write of the new one when its keys changed. An entry's
 *   size is its index keys, the table's keys and its projected attributes, plus 100 bytes.
 *
 * A write refused by its condition is billed too on AWS; the meter bills only writes that were
 * made (the probes make none that are refused).
 */
import { tableDefinition } from '#shared/store/table.ts';

type Item = Record<string, unknown>;

/** What DynamoDB counts for a value, in bytes. */
export function valueSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') {
    // Up to 38 significant digits, two to a byte, plus one; leading and trailing zeros are trimmed.
    const digits = String(value)
      .replace(/^-|\.|e.*$/gi, '')
      .replace(/^0+|0+$/g, '').length;
    return Math.ceil(digits / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, member) => sum + valueSize(member), 0);
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, member) => sum + 1 + valueSize(member), 0);
  if (typeof value === 'object') {
    return 3 + Object.entries(value).reduce((sum, [name, member]) => sum + 1 + Buffer.byteLength(name) + valueSize(member), 0);
  }
  return 0;
}

export function itemSize(item: Item | undefined): number {
  if (!item) return 0;
  let size = 0;
  for (const [name, value] of Object.entries(item)) if (value !== undefined) size += Buffer.byteLength(name) + valueSize(value);
  return size;
}

const KB = 1024;
const units = (bytes: number, per: number) => Math.max(1, Math.ceil(bytes / per));

type IndexDefinition = { partitionKey: string; sortKey: string; projection: string; include?: readonly string[] };

/** An item's entry in `index`, or undefined when the item lacks the index's keys. */
function entryOf(index: IndexDefinition, item: Item | undefined): Item | undefined {
  if (!item || typeof item[index.partitionKey] !== 'string' || typeof item[index.sortKey] !== 'string') return undefined;
  if (index.projection === 'ALL') return item;
  const names = [tableDefinition.partitionKey, tableDefinition.sortKey, index.partitionKey, index.sortKey, ...(index.include ?? [])];
  return Object.fromEntries(names.filter((name) => item[name] !== undefined).map((name) => [name, item[name]]));
}

const sameEntry = (a: Item, b: Item) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

export interface Billed {
  wcu: number;
  rcu: number;
}

/** What one action of a write request is billed: `before` and `after` are the item's images (undefined: absent). */
export function billedAction(action: 'write' | 'check', before: Item | undefined, after: Item | undefined, transactional: boolean): Billed {
  if (action === 'check') return { wcu: 0, rcu: (transactional ? 2 : 1) * units(itemSize(before), 4 * KB) };
  let wcu = (transactional ? 2 : 1) * units(Math.max(itemSize(before), itemSize(after)), KB);
  for (const index of tableDefinition.indexes as readonly IndexDefinition[]) {
    const old = entryOf(index, before);
    const next = entryOf(index, after);
    const entryUnits = (entry: Item) => units(itemSize(entry) + 100, KB);
    const moved = old && next && (old[index.partitionKey] !== next[index.partitionKey] || old[index.sortKey] !== next[index.sortKey]);
    if (old && next && !moved) wcu += sameEntry(old, next) ? 0 : entryUnits(next);
    else wcu += (old ? entryUnits(old) : 0) + (next ? entryUnits(next) : 0);
  }
  return { wcu, rcu: 0 };
}
