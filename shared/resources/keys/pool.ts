/**
 * Taking a key from a policy's pool (docs/rules.md §18.9, docs/data-model.md pattern 64): a key
 * read from the pool is deleted in the transaction that uses it, on condition that it is still
 * there, so of concurrent takers each gets a key of its own. A taker that finds its key taken
 * tries another (chosen at random among the oldest, so that concurrent takers rarely pick
 * alike), leaving out those it knows are gone; when the pool holds none but those, it is empty.
 */
import { randomInt } from 'node:crypto';
import { conflict, ruleBroken } from '../../errors.ts';
import { parentIn } from '../../licensing/slots.ts';
import { collectionPage } from '../../store/cascade.ts';
import { collectionName, collectionPartition, uniqueKey } from '../../store/keys.ts';
import { itemOf, type StoredItem } from '../../store/records.ts';
import type { Scope } from '../../store/scope.ts';
import type { Transaction } from '../../store/transaction.ts';
import type { PolicyRecord } from '../policies/entity.ts';
import { attributePointer } from '../rules.ts';
import { type KeyRecord, POOL_KEY_MARKER, poolKeyValue } from './entity.ts';

/** Keys read from the pool at once, among which one is chosen. */
const PICK_AMONG = 25;
/** Tries before giving up: each failure means another taker won a key, so the pool keeps moving. */
const ATTEMPTS = 10;

/** Fails the transaction unless no pool holds `key`: a license given a key by hand takes none a pool holds. */
export function requireNotPooled(tx: Transaction, accountId: string, key: string): void {
  tx.requireState(
    uniqueKey(accountId, POOL_KEY_MARKER, poolKeyValue(key)),
    { ref: undefined },
    ruleBroken('KEY_CONFLICT', "is already in a policy's pool of keys", attributePointer('key')),
  );
}

/** The key a taker tried was taken meanwhile. */
export class KeyTaken extends Error {}

export const poolEmpty = (pointer: string) => ruleBroken('POLICY_POOL_EMPTY', 'pool is empty', pointer);

/** The oldest keys of the policy's pool in the request's own environment (a pool is never another's), but those left out. */
async function oldestKeys(scope: Scope, policy: PolicyRecord, gone: ReadonlySet<string>): Promise<StoredItem<KeyRecord>[]> {
  const parent = parentIn('keys', 'policy', policy.id);
  const partition = collectionPartition(scope.accountId, scope.environmentId, collectionName('keys', parent));
  let after: Record<string, unknown> | undefined;
  do {
    const page = await collectionPage(parent.slot, partition, PICK_AMONG, after);
    const left = page.items.filter((item) => !gone.has(item.id)).map((item) => itemOf('keys', item));
    if (left.length > 0) return left;
    after = page.after;
  } while (after);
  return [];
}

/**
 * Runs `use` with a key of the pool, which must delete it (as read: its value unchanged) in its
 * transaction failing with the `taken` error given; again with another while the one tried was
 * taken or changed meanwhile. 422
 * POLICY_POOL_EMPTY (at `pointer`) when the pool holds none.
 */
export async function withPooledKey<T>(
  scope: Scope,
  policy: PolicyRecord,
  pointer: string,
  use: (key: StoredItem<KeyRecord>, taken: KeyTaken) => Promise<T>,
): Promise<T> {
  const gone = new Set<string>();
  for (let attempt = 1; ; attempt++) {
    const keys = await oldestKeys(scope, policy, gone);
    if (keys.length === 0) throw poolEmpty(pointer);
    const key = keys[randomInt(keys.length)] as StoredItem<KeyRecord>;
    const taken = new KeyTaken();
    try {
      return await use(key, taken);
    } catch (error) {
      if (error !== taken || attempt === ATTEMPTS) throw error === taken ? poolBusy() : error;
      gone.add(key.id);
    }
  }
}

/** Ten keys in a row taken by others: only under many concurrent takers. */
const poolBusy = () => conflict('The pool kept changing while a key was taken from it; retry the request');
