/**
 * Every write goes through a Transaction: the record, the uniqueness markers it claims or
 * releases, and the counters of the collections it joins or leaves are written together, so
 * a uniqueness rule or a count can never be broken by a crash or a race. Conditions carry the
 * error to raise when they fail; a lost race on a counter (TransactionConflict) is retried.
 * Attributes kept as JSON text (see toStored) are written as text here, whatever the caller
 * passes. A limit of the table that a request's values reach fails as DynamoDB tells it: the
 * pipeline's error boundary names it (storageLimitOf in errors.ts), as for every other store call.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { logger } from '../logger.ts';
import { db, getTable as table } from './client.ts';
import {
  collectionName,
  collectionPartition,
  collectionSortKey,
  counterKey,
  environmentMembership,
  type Key,
  PARENT_INDEXES,
  type RecordType,
  recordKey,
  uniqueKey,
} from './keys.ts';
import { backoff, type Item, type StoredRecord, toStored } from './records.ts';

/** A value a record holds exclusively within its account (an e-mail, a code, a key). */
export interface UniqueClaim {
  kind: string;
  /** Already normalised (e.g. lower-cased) by the domain. */
  value: string;
  /** Raised when another record holds the value. */
  taken: Error;
  /** What the marker carries besides its holder's key (`ref`): facts a reader needs without reading the holder. */
  carries?: object;
}

export interface Parent {
  type: RecordType;
  id: string;
}

/**
 * A count of the records holding a value within some scope (a fingerprint's holders in a
 * policy, say), which the record joins when it is created and leaves when it is deleted.
 */
export interface HolderCount {
  key: Key;
  /** The ENVPK the count carries. */
  membership?: string;
  /** Set when the count must be 0 for the record to be created: raised when some record holds the value already. */
  taken?: Error;
}

/** DynamoDB takes at most this many operations in one transaction. */
export const MAX_OPERATIONS = 100;

type Operation = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

const COLLECTION_ATTRIBUTES = ['GSI1PK', ...PARENT_INDEXES.map((index) => `${index}PK`)];
const MAX_ATTEMPTS = 10;

export class Transaction {
  private readonly operations: Operation[] = [];
  /** The error to raise when operation i's condition fails. */
  private readonly failures: (Error | undefined)[] = [];
  /**
   * Changes of count items (collection counters and tallies), summed per item: one transaction
   * may touch each item only once. Keyed by `countId`.
   */
  private readonly counts = new Map<string, Count>();
  /** Upper bounds on counts (e.g. a webhook endpoint limit), checked by the count's update itself. */
  private readonly caps = new Map<string, { max: number; exceeded: Error }>();
  /** Values counts must hold before the commit (see expectCount). */
  private readonly expected = new Map<string, { key: Key; n: number; changed: Error }>();
  /** Holder counts left by the records this transaction deletes. */
  private readonly left = new Map<string, Key>();
  /** Run once the commit has succeeded: work that must follow the writes, never precede them. */
  private readonly afterCommitActions: (() => Promise<void> | void)[] = [];

  /**
   * Creates a record in its collections, claiming its unique values and joining its holder
   * counts (kept on the item as `counted`, so its delete leaves them). Returns the stored item.
   */
  create<T extends StoredRecord>(
    record: T,
    options: {
      parents?: (Parent | undefined)[];
      unique?: UniqueClaim[];
      counted?: HolderCount[];
      /** Its place in one parent collection (by slot), if not its own: a record standing for another there sorts as that one. */
      sortedAs?: { slot: number; sortKey: string };
      /** Raised when a record with its key exists already (a record whose id its content decides). */
      exists?: Error;
    } = {},
  ): Item {
    const { accountId, environmentId, type, id, created } = record;
    const key = recordKey(accountId, type, id);
    const item = { ...toStored(record), ...key } as Item;
    const sortKey = collectionSortKey(created, id);
    item.GSI1PK = collectionPartition(accountId, environmentId, collectionName(type));
    item.GSI1SK = sortKey;
    (options.parents ?? []).forEach((parent, slot) => {
      if (!parent) return;
      const index = PARENT_INDEXES[slot];
      if (!index) throw new Error(`A record has at most ${PARENT_INDEXES.length} parents`);
      item[`${index}PK`] = collectionPartition(accountId, environmentId, collectionName(type, parent));
      item[`${index}SK`] = options.sortedAs?.slot === slot ? options.sortedAs.sortKey : sortKey;
    });
    if (environmentId) item.ENVPK = environmentMembership(accountId, environmentId);
    const claims = options.unique ?? [];
    item.markers = claims.map((claim) => uniqueKey(accountId, claim.kind, claim.value).PK);
    const counted = options.counted ?? [];
    if (counted.length > 0) item.counted = counted.map(({ key: { PK, SK } }) => ({ PK, SK }));

    this.add({ Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' } }, options.exists);
    for (const claim of claims) this.claim(accountId, environmentId, key, claim);
    for (const partition of collectionsOf(item)) this.count(accountId, environmentId, partition, 1);
    for (const { key: countKey, membership, taken } of counted) {
      this.tally(countKey, 1, { membership, ...(taken ? { max: 1, exceeded: taken } : {}) });
    }
    return item;
  }

  /**
   * Changes attributes of a stored record (null removes one), swapping uniqueness markers when
   * a unique value changes. Fails with `missing` when the record was deleted meanwhile.
   */
  update<I extends Item>(
    item: I,
    changes: Record<string, unknown>,
    options: {
      missing: Error;
      claim?: UniqueClaim[];
      release?: { kind: string; value: string }[];
      /** Attribute values the update requires to be still in place (else `missing`): a compare-and-set; null: absent or null. */
      unchanged?: Record<string, unknown>;
      /** Attributes the update requires to be still absent or null (else `missing`): a set-once. */
      unset?: readonly string[];
      /** Numbers the update requires to be absent or below these values (else `missing`): a mark that only moves on. */
      below?: Record<string, number>;
      /**
       * Raised instead of `missing` when the update swaps markers or requires `unchanged`, `unset` or `below` values:
       * the update is conditional on what was read, so of two concurrent changes only one lands.
       */
      conflict?: Error;
    },
  ): I {
    const accountId = item.accountId as string;
    const environmentId = (item.environmentId as string | null) ?? null;
    const key = { PK: item.PK, SK: item.SK };
    const released = (options.release ?? []).map((r) => uniqueKey(accountId, r.kind, r.value).PK);
    const claimed = (options.claim ?? []).map((c) => uniqueKey(accountId, c.kind, c.value).PK);
    const held = item.markers as string[] | undefined;
    const markers = held || claimed.length ? [...(held ?? []).filter((pk) => !released.includes(pk)), ...claimed] : undefined;
    const stored = toStored(changes);
    const next: Item = { ...item, ...stored, ...(markers ? { markers } : {}) };

    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets: string[] = [];
    const removes: string[] = [];
    Object.entries({ ...stored, ...(markers ? { markers } : {}) }).forEach(([name, value], i) => {
      names[`#a${i}`] = name;
      if (value === null || value === undefined) {
        removes.push(`#a${i}`);
        delete next[name];
      } else {
        values[`:v${i}`] = value;
        sets.push(`#a${i} = :v${i}`);
      }
    });
    const expression = [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : '']
      .filter(Boolean)
      .join(' ');
    const conditions = ['attribute_exists(PK)'];
    const swapsMarkers = claimed.length > 0 || released.length > 0;
    const unchanged = swapsMarkers && held ? { ...options.unchanged, markers: held } : options.unchanged;
    if (swapsMarkers && !held) conditions.push('attribute_not_exists(markers)');
    Object.entries(unchanged ?? {}).forEach(([name, value], i) => {
      names[`#c${i}`] = name;
      values[`:c${i}`] = value === null ? 'NULL' : value;
      // Null is what an absent attribute reads as: either holds it (an update writing null removes one).
      conditions.push(value === null ? `(attribute_not_exists(#c${i}) OR attribute_type(#c${i}, :c${i}))` : `#c${i} = :c${i}`);
    });
    (options.unset ?? []).forEach((name, i) => {
      names[`#u${i}`] = name;
      values[':null'] = 'NULL';
      conditions.push(`(attribute_not_exists(#u${i}) OR attribute_type(#u${i}, :null))`);
    });
    Object.entries(options.below ?? {}).forEach(([name, value], i) => {
      names[`#b${i}`] = name;
      values[`:b${i}`] = value;
      conditions.push(`(attribute_not_exists(#b${i}) OR #b${i} < :b${i})`);
    });
    this.add(
      {
        Update: {
          TableName: table(),
          Key: key,
          UpdateExpression: expression,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
        },
      },
      swapsMarkers || options.unchanged || options.unset || options.below ? (options.conflict ?? options.missing) : options.missing,
    );
    for (const pk of released) this.add({ Delete: { TableName: table(), Key: { PK: pk, SK: key.SK } } });
    for (const claim of options.claim ?? []) this.claim(accountId, environmentId, key, claim);
    // The item as written: the changes are the record's own attributes, so it is still an I.
    return next as I;
  }

  /**
   * Adds `by` (negative: subtracts) to the number `attribute` of a stored record (absent: 0), and
   * sets `changes`, on condition that the sum stays within `bounds` (`atMost` null: unbounded):
   * the bound is judged by the write itself, so it holds under concurrent changes. Fails with
   * `failed` when the record is gone or the sum would leave its bounds (read again to tell which).
   */
  increment(
    item: Item,
    attribute: string,
    by: number,
    bounds: { atLeast: number; atMost: number | null },
    changes: Record<string, unknown>,
    failed: Error,
  ): void {
    const names: Record<string, string> = { '#n': attribute };
    const values: Record<string, unknown> = { ':by': by };
    const sets = Object.entries(toStored(changes)).map(([name, value], i) => {
      names[`#s${i}`] = name;
      values[`:s${i}`] = value;
      return `#s${i} = :s${i}`;
    });
    // What the number may be before the write for the sum to stay within bounds (a comparison with
    // an absent attribute is false: an absent number, 0, passes only when said so).
    values[':low'] = bounds.atLeast - by;
    const within = ['#n >= :low'];
    if (bounds.atMost !== null) {
      values[':high'] = bounds.atMost - by;
      within.push('#n <= :high');
    }
    const zeroWithin = by >= bounds.atLeast && (bounds.atMost === null || by <= bounds.atMost);
    const range = zeroWithin ? `(attribute_not_exists(#n) OR (${within.join(' AND ')}))` : `(${within.join(' AND ')})`;
    this.add(
      {
        Update: {
          TableName: table(),
          Key: { PK: item.PK, SK: item.SK },
          UpdateExpression: `ADD #n :by${sets.length ? ` SET ${sets.join(', ')}` : ''}`,
          ConditionExpression: `attribute_exists(PK) AND ${range}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
      failed,
    );
  }

  /**
   * Deletes a stored record with its markers, and leaves its collections' counts and its holder
   * counts; a holder count it leaves at 0 is deleted after the commit. With `unchanged`, only
   * while the record still holds those values (undefined: the attribute is absent), else
   * `missing`: a delete that gives back what it read (a machine's cores) is conditional on it.
   */
  delete(item: Item, missing?: Error, unchanged?: Record<string, unknown>): void {
    const accountId = item.accountId as string;
    const environmentId = (item.environmentId as string | null) ?? null;
    const state = unchanged && Object.keys(unchanged).length > 0 ? stateCondition(unchanged) : undefined;
    this.add(
      {
        Delete: {
          TableName: table(),
          Key: { PK: item.PK, SK: item.SK },
          ...state,
          ConditionExpression: state ? `attribute_exists(PK) AND ${state.ConditionExpression}` : 'attribute_exists(PK)',
        },
      },
      missing,
    );
    for (const pk of (item.markers as string[] | undefined) ?? []) {
      this.add({ Delete: { TableName: table(), Key: { PK: pk, SK: item.SK } } });
    }
    for (const partition of collectionsOf(item)) this.count(accountId, environmentId, partition, -1);
    for (const key of (item.counted as Key[] | undefined) ?? []) {
      this.change(key, -1, {});
      if (this.left.size === 0) this.afterCommit(() => deleteEmptyCounts([...this.left.values()]));
      this.left.set(countId(key), key);
    }
  }

  /**
   * Fails the transaction with `exceeded` if this transaction would take the count of the
   * collection `type` (under `parent`, if given; in the record's environment) above `max`. Being part of
   * the counter's own update, the bound holds under concurrent writes.
   */
  cap(accountId: string, environmentId: string | null, type: RecordType, parent: Parent | undefined, max: number, exceeded: Error): void {
    this.caps.set(countId(counterKey(collectionPartition(accountId, environmentId, collectionName(type, parent)))), { max, exceeded });
  }

  /**
   * Adds `delta` to the count `n` of an item outside the collections (e.g. a license's machines
   * in every environment), summed with this transaction's other changes to it; `membership` is
   * the ENVPK it carries. `max` bounds the count in the update itself (else `exceeded`), so the
   * bound holds under concurrent writes; `missing` makes the update fail with it rather than
   * create an item that is not there.
   */
  tally(
    key: Key,
    delta: number,
    options: { membership?: string; max?: number; exceeded?: Error; missing?: Error; expiresAt?: number } = {},
  ): void {
    this.change(key, delta, { membership: options.membership, missing: options.missing, expiresAt: options.expiresAt });
    if (options.max !== undefined && options.exceeded) this.caps.set(countId(key), { max: options.max, exceeded: options.exceeded });
  }

  /** Deletes a tally item in this transaction, instead of any change it was given (what it counts goes). */
  dropTally(key: Key): void {
    this.change(key, 0, { dropped: true });
  }

  /** Writes an item outside the record model (a lookup pointer), optionally only if new. */
  put(item: Item, options: { ifAbsent?: Error } = {}): void {
    this.add(
      {
        Put: {
          TableName: table(),
          Item: toStored(item),
          ...(options.ifAbsent ? { ConditionExpression: 'attribute_not_exists(PK)' } : {}),
        },
      },
      options.ifAbsent,
    );
  }

  /** Deletes an item outside the record model; with `state`, only while it holds those values (else `changed`). */
  remove(key: Key, expected?: { state: Record<string, unknown>; changed: Error }): void {
    this.add({ Delete: { TableName: table(), Key: key, ...(expected ? stateCondition(expected.state) : {}) } }, expected?.changed);
  }

  /**
   * Changes an item outside the record model, creating it if absent: `changes` set attributes
   * (null removes one), `increments` add to numbers. With `expected`, only while the item holds
   * those values (undefined: the attribute is absent), else the transaction fails with `changed`.
   */
  patch(
    key: Key,
    changes: Record<string, unknown>,
    increments: Record<string, number> = {},
    expected?: { state: Record<string, unknown>; changed: Error },
  ): void {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets: string[] = [];
    const removes: string[] = [];
    const adds: string[] = [];
    Object.entries(changes).forEach(([name, value], i) => {
      names[`#s${i}`] = name;
      if (value === null) removes.push(`#s${i}`);
      else {
        values[`:s${i}`] = value;
        sets.push(`#s${i} = :s${i}`);
      }
    });
    Object.entries(increments).forEach(([name, by], i) => {
      names[`#n${i}`] = name;
      values[`:n${i}`] = by;
      adds.push(`#n${i} :n${i}`);
    });
    const expression = [
      sets.length ? `SET ${sets.join(', ')}` : '',
      removes.length ? `REMOVE ${removes.join(', ')}` : '',
      adds.length ? `ADD ${adds.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(' ');
    const condition = expected && stateCondition(expected.state);
    const allValues = { ...values, ...condition?.ExpressionAttributeValues };
    this.add(
      {
        Update: {
          TableName: table(),
          Key: key,
          UpdateExpression: expression,
          ExpressionAttributeNames: { ...names, ...condition?.ExpressionAttributeNames },
          ...(condition ? { ConditionExpression: condition.ConditionExpression } : {}),
          ...(Object.keys(allValues).length ? { ExpressionAttributeValues: allValues } : {}),
        },
      },
      expected?.changed,
    );
  }

  /**
   * Fails the transaction with `changed` unless the count `key` holds `n` when it commits (an
   * absent count holds 0), whatever this transaction changes of it: a removal that deletes the
   * members of a collection it listed thus fails if a member joined since.
   */
  expectCount(key: Key, n: number, changed: Error): void {
    this.expected.set(countId(key), { key, n, changed });
  }

  /** Fails the transaction with `missing` unless the item exists (e.g. a parent deleted meanwhile). */
  requireExists(key: Key, missing: Error): void {
    this.add({ ConditionCheck: { TableName: table(), Key: key, ConditionExpression: 'attribute_exists(PK)' } }, missing);
  }

  /**
   * Fails the transaction with `changed` unless the item holds these values; an undefined value
   * means the attribute (or the whole item) is absent, null that it is absent or null.
   */
  requireState(key: Key, state: Record<string, unknown>, changed: Error): void {
    this.add({ ConditionCheck: { TableName: table(), Key: key, ...stateCondition(state) } }, changed);
  }

  /**
   * Runs `action` after a successful commit, and never when the commit fails (e.g. deleting the
   * counts a delete left at 0). Never a send: what a change asks to be sent is an item it writes,
   * sent by the outbox relay (shared/outbox/entries.ts). The commit stands whatever the
   * action does: a failing action is logged, not thrown, so a request that changed something
   * never answers as if it had not.
   */
  afterCommit(action: () => Promise<void> | void): void {
    this.afterCommitActions.push(action);
  }

  /** Operations the commit will send; DynamoDB takes at most 100 in one transaction. */
  get size() {
    const checkedOnly = [...this.expected.keys()].filter((id) => !this.counts.has(id)).length;
    return this.operations.length + this.counts.size + checkedOnly;
  }

  async commit(): Promise<void> {
    const counters = this.counterOperations();
    const operations = [...this.operations, ...counters.map((c) => c.operation)];
    const failures = [...this.failures, ...counters.map((c) => c.exceeded)];
    if (operations.length > 0) await this.write(operations, failures);
    for (const action of this.afterCommitActions) {
      try {
        await action();
      } catch (error) {
        logger.error('an after-commit action failed; the commit stands', { error: error as Error });
      }
    }
  }

  private async write(operations: Operation[], failures: (Error | undefined)[]): Promise<void> {
    const [only] = operations;
    if (operations.length === 1 && only && !only.ConditionCheck) return writeOne(only, failures[0]);
    for (let attempt = 1; ; attempt++) {
      try {
        await db().send(new TransactWriteCommand({ TransactItems: operations }));
        return;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const reasons = error.CancellationReasons ?? [];
        const failed = reasons.findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
        if (failed >= 0) throw failures[failed] ?? error;
        // An operation refused for its values (ValidationError) fails at once: retrying cannot help.
        const conflict = reasons.some((reason) => reason.Code === 'TransactionConflict');
        const invalid = reasons.some((reason) => reason.Code === 'ValidationError');
        if (!conflict || invalid || attempt >= MAX_ATTEMPTS) throw error;
        await backoff(attempt);
      }
    }
  }

  private add(operation: Operation, failure?: Error) {
    this.operations.push(operation);
    this.failures.push(failure);
  }

  private claim(accountId: string, environmentId: string | null, owner: Key, claim: UniqueClaim) {
    const marker: Item = { ...claim.carries, ...uniqueKey(accountId, claim.kind, claim.value), ref: owner.PK };
    if (environmentId) marker.ENVPK = environmentMembership(accountId, environmentId);
    this.add({ Put: { TableName: table(), Item: marker, ConditionExpression: 'attribute_not_exists(PK)' } }, claim.taken);
  }

  private count(accountId: string, environmentId: string | null, partition: string, delta: number) {
    this.change(counterKey(partition), delta, { membership: environmentId ? environmentMembership(accountId, environmentId) : undefined });
  }

  private change(key: Key, delta: number, options: Pick<Count, 'membership' | 'missing' | 'dropped' | 'expiresAt'>) {
    const current = this.counts.get(countId(key));
    this.counts.set(countId(key), {
      key,
      delta: (current?.delta ?? 0) + delta,
      membership: options.membership ?? current?.membership,
      expiresAt: options.expiresAt ?? current?.expiresAt,
      missing: options.missing ?? current?.missing,
      dropped: options.dropped ?? current?.dropped,
    });
  }

  private counterOperations(): { operation: Operation; exceeded?: Error }[] {
    const changes = [...this.counts]
      .filter(([id, { delta, dropped }]) => delta !== 0 || dropped || this.expected.has(id))
      .map(([id, { key, delta, membership, missing, dropped, expiresAt }]) => {
        const expected = this.expected.get(id);
        const expectation = expected && expectedCondition(expected.n);
        if (dropped || delta === 0) {
          const operation: Operation = dropped
            ? { Delete: { TableName: table(), Key: key, ...expectation } }
            : { ConditionCheck: { TableName: table(), Key: key, ...(expectation ?? expectedCondition(0)) } };
          return { operation, exceeded: expected?.changed };
        }
        const cap = delta > 0 ? this.caps.get(id) : undefined;
        if (cap && cap.max < delta) throw cap.exceeded;
        const values: Record<string, unknown> = { ':delta': delta, ...expectation?.ExpressionAttributeValues };
        if (membership) values[':env'] = membership;
        if (expiresAt !== undefined) values[':expires'] = expiresAt;
        if (cap) values[':room'] = cap.max - delta;
        const sets = [membership ? 'ENVPK = :env' : '', expiresAt !== undefined ? 'expiresAt = :expires' : ''].filter(Boolean);
        const conditions = [
          missing ? 'attribute_exists(PK)' : '',
          cap ? '(attribute_not_exists(n) OR n <= :room)' : '',
          expectation ? `(${expectation.ConditionExpression})` : '',
        ].filter(Boolean);
        return {
          operation: {
            Update: {
              TableName: table(),
              Key: key,
              UpdateExpression: sets.length ? `ADD n :delta SET ${sets.join(', ')}` : 'ADD n :delta',
              ...(conditions.length ? { ConditionExpression: conditions.join(' AND ') } : {}),
              ExpressionAttributeValues: values,
            },
          },
          exceeded: cap?.exceeded ?? missing ?? expected?.changed,
        };
      });
    const checks = [...this.expected]
      .filter(([id]) => !this.counts.has(id))
      .map(([, { key, n, changed }]) => ({
        operation: { ConditionCheck: { TableName: table(), Key: key, ...expectedCondition(n) } } as Operation,
        exceeded: changed,
      }));
    return [...changes, ...checks];
  }
}

/** A count holding `n` (an absent one holds 0). */
function expectedCondition(n: number) {
  return {
    ConditionExpression: n === 0 ? 'attribute_not_exists(n) OR n = :expected' : 'n = :expected',
    ExpressionAttributeValues: { ':expected': n },
  };
}

/** A count item's change, summed over the transaction. */
interface Count {
  key: Key;
  delta: number;
  /** The ENVPK the item carries. */
  membership?: string;
  /** Raised when the item is absent: the change never creates it. */
  missing?: Error;
  /** Deleted by the transaction, whatever its delta. */
  dropped?: boolean;
  /** Epoch seconds after which DynamoDB's TTL removes the item (a rate limit's window). */
  expiresAt?: number;
}

const countId = (key: Key) => `${key.PK}|${key.SK}`;

/**
 * A transaction of one write is that write alone, with the same condition: half the write units
 * of a transactional one, and no transaction to coordinate (a validation's address limit, say).
 * A failed condition raises the operation's error (else ConditionalCheckFailedException).
 */
async function writeOne(operation: Operation, failure: Error | undefined): Promise<void> {
  try {
    if (operation.Put) await db().send(new PutCommand(operation.Put));
    else if (operation.Update) await db().send(new UpdateCommand(operation.Update as UpdateCommandInput));
    else if (operation.Delete) await db().send(new DeleteCommand(operation.Delete));
  } catch (error) {
    throw error instanceof ConditionalCheckFailedException ? (failure ?? error) : error;
  }
}

/**
 * Deletes the counts among `keys` that count nothing, each only while it is at 0 (or below, for
 * a decrement that found its count gone), so a count a create raised meanwhile stays. What a
 * crash leaves at 0 still reads as no holder. The deletes go together, in one transaction per
 * 100: a count that is not empty (or gone already) cancels it and is left out of the next try,
 * so a removal usually pays one request for all its counts rather than one each.
 */
export async function deleteEmptyCounts(keys: Key[]): Promise<void> {
  const chunks: Key[][] = [];
  for (let i = 0; i < keys.length; i += MAX_OPERATIONS) chunks.push(keys.slice(i, i + MAX_OPERATIONS));
  await Promise.all(chunks.map(deleteEmptyTogether));
}

const emptyDelete = (key: Key) => ({
  TableName: table(),
  Key: key,
  ConditionExpression: 'n <= :zero',
  ExpressionAttributeValues: { ':zero': 0 },
});

async function deleteEmptyTogether(keys: Key[]): Promise<void> {
  let pending = keys;
  for (let attempt = 1; pending.length > 1 && attempt <= MAX_ATTEMPTS; attempt++) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: pending.map((key) => ({ Delete: emptyDelete(key) })) }));
      return;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const kept = new Set(reasons.flatMap((reason, i) => (reason.Code === 'ConditionalCheckFailed' ? [i] : [])));
      if (kept.size > 0) pending = pending.filter((_, i) => !kept.has(i));
      else if (reasons.some((reason) => reason.Code === 'TransactionConflict')) await backoff(attempt);
      else throw error;
    }
  }
  // One left, or counts too busy to delete together: each on its own.
  await Promise.all(
    pending.map(async (key) => {
      try {
        await db().send(new DeleteCommand(emptyDelete(key)));
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }),
  );
}

function collectionsOf(item: Item): string[] {
  return COLLECTION_ATTRIBUTES.map((name) => item[name]).filter((value): value is string => typeof value === 'string');
}

/** A condition that the item holds `state` (undefined: the attribute is absent). */
function stateCondition(state: Record<string, unknown>) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const conditions = Object.entries(state).map(([name, value], i) => {
    names[`#q${i}`] = name;
    if (value === undefined) return `attribute_not_exists(#q${i})`;
    if (value === null) {
      // Null is what an absent attribute reads as: either holds it.
      values[`:q${i}`] = 'NULL';
      return `(attribute_not_exists(#q${i}) OR attribute_type(#q${i}, :q${i}))`;
    }
    values[`:q${i}`] = value;
    return `#q${i} = :q${i}`;
  });
  return {
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
  };
}
