/**
 * Keys: a policy's pool of license keys made ahead (docs/rules.md §18.9), as Keygen keeps them. A
 * license created under a policy that uses its pool, without a key of its own, takes one: the key
 * leaves the pool in the transaction that creates the license, so each is taken once. A key is
 * unique per account among the pools, held by a marker keyed by its SHA-256 (keys may be longer
 * than a DynamoDB key may be), and is never one a license holds already.
 */
import { digest } from '../../auth/secrets.ts';
import type { AccessPattern, MarkerKind } from '../../store/data-model.ts';
import type { StoredRecord } from '../../store/records.ts';

export interface KeyRecord extends StoredRecord {
  type: 'keys';
  policyId: string;
  productId: string;
  key: string;
}

/**
 * The collections a key joins, by the name of the parent it names: the order is the store's
 * (the first is GSI2, the next GSI3...), never to be changed (docs/data-model.md). Its policy's
 * collection is the pool.
 */
export const KEY_PARENTS = { policy: 'policies', product: 'products' } as const;

export const POOL_KEY_MARKER = 'POOL_KEY';

/** The uniqueness markers its records hold (docs/data-model.md). */
export const MARKER_KINDS: readonly MarkerKind[] = [{ kind: POOL_KEY_MARKER, value: 'SHA-256 of a pooled key' }];

export const poolKeyValue = (key: string) => digest(key);

/** A pooled key's length, as Keygen bounds it: 8 characters to 1 KB. */
export const POOL_KEY_MIN = 8;
export const POOL_KEY_MAX = 1024;

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 64,
    name: "Take a key from a policy's pool (a license's create, the pool's pop)",
    operation:
      "Query GSI2 (the policy's pool in the request's environment, oldest first, at most 25), then TransactWriteItems: Delete the key chosen at random among them (and its marker) if `attribute_exists(PK)`, with the license's create or the pop's event; a key taken meanwhile (the Delete's condition) is tried again with another, reading the pool again, at most 10 times",
    index: 'GSI2',
    key: '`GSI2PK = A#<acct>#E#<env>#POLICY#<id>#KEY`',
    usedBy: 'licenses.create (under a policy with a pool), policies.pool.pop',
    tests: ['http/key-pools'],
  },
];
