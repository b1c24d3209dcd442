/**
 * Items a request reads before its handler runs, fetched together in one BatchGetItem: the
 * account, the token lookup, the environment, and whatever the route's path and method say
 * the handler reads first (its record, its list's counters, the webhook subscriptions of a
 * change). Each item is handed out once: a second read of the same key (after a write, say)
 * goes to the table.
 */

import type { AccessPattern } from './data-model.ts';
import { type Key, keyName } from './keys.ts';
import { getItem, getItems, type Item } from './records.ts';

export class ReadAhead {
  private constructor(private readonly items: Map<string, Item | null>) {}

  static async of(keys: Key[]): Promise<ReadAhead> {
    const unique = [...new Map(keys.map((key) => [keyName(key), key])).values()];
    const items = new Map<string, Item | null>(unique.map((key) => [keyName(key), null]));
    for (const item of unique.length ? await getItems(unique) : []) items.set(keyName(item), item);
    return new ReadAhead(items);
  }

  /** Whether `key` was read ahead and not yet handed out. */
  has(key: Key): boolean {
    return this.items.has(keyName(key));
  }

  /** The item read ahead (undefined: it does not exist); only for a key that `has`. */
  take(key: Key): Item | undefined {
    const item = this.items.get(keyName(key));
    this.items.delete(keyName(key));
    return item ?? undefined;
  }
}

/** Reads an item: from what was read ahead if it holds the key, else from the table. */
export async function readItem(ahead: ReadAhead | undefined, key: Key): Promise<Item | undefined> {
  return ahead?.has(key) ? ahead.take(key) : getItem(key);
}

/** Reads items (those that exist): what was read ahead, the rest in one BatchGetItem. */
export async function readItems(ahead: ReadAhead | undefined, keys: Key[]): Promise<Item[]> {
  const missing = keys.filter((key) => !ahead?.has(key));
  const known = ahead ? keys.filter((key) => ahead.has(key)).map((key) => ahead.take(key)) : [];
  const fetched = missing.length ? await getItems(missing) : [];
  return [...known.filter((item): item is Item => item !== undefined), ...fetched];
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 36,
    name: 'What a request reads first',
    operation: 'BatchGetItem',
    index: 'table',
    key: "account (1/2), token lookup (6), environment (5), the path's record (3), a list's counters (9), the subscriptions (15); the account's item carries the register of removals under way (56)",
    usedBy: "the pipeline's read-ahead step (`shared/http/request-keys.ts`)",
    tests: ['bench/round-trips'],
  },
];
