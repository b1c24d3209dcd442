/**
 * The register of removals under way: the records of an account removed at once whose
 * descendants the cascades worker is still removing (shared/licensing/cascade.ts). One attribute
 * per removed record on the account's own item, written in the transaction that removes the
 * record and cleared when the worker has finished.
 *
 * Every request reads its account first (findAccount), so it knows the register, empty or not,
 * from that read, at no item of its own: a record that hangs on a removed one (a license of a
 * removed policy, a machine of a removed license...) is gone for every read at once, found by id,
 * by a unique value or by a fingerprint, listed, or presented as a credential. A record's
 * ancestry is what it carries (`productId`, `policyId`, `licenseId`, `machineId`).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, getTable } from './client.ts';
import type { AccessPattern } from './data-model.ts';
import { accountKey } from './keys.ts';
import { type ReadAhead, readItem } from './read-ahead.ts';
import type { Item } from './records.ts';
import type { Scope } from './scope.ts';
import type { Transaction } from './transaction.ts';

const ENTRY = 'removed#';

/** The attributes naming a record's ancestors in the licensing graph. */
const ANCESTRY = ['productId', 'policyId', 'licenseId', 'machineId'] as const;

/**
 * Removals an account may have under way at once: far below what one item holds. A removal
 * beyond it is refused (409) until some of them finish (shared/licensing/removal.ts).
 */
export const MAX_REMOVALS_UNDER_WAY = 1000;

/** What the register says of one removed record. */
interface Removal {
  type: string;
  environmentId: string | null;
  since: string;
}

/** Enters `item` in its account's register, in the transaction that removes it. */
export function registerRemoval(tx: Transaction, item: Item): void {
  const entry: Removal = {
    type: item.type as string,
    environmentId: (item.environmentId as string | null | undefined) ?? null,
    since: new Date().toISOString(),
  };
  tx.patch(accountKey(item.accountId as string), { [`${ENTRY}${item.id}`]: entry });
}

/** Clears a removal from the register once its descendants are gone (idempotent). */
export async function clearRemoval(accountId: string, id: string): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: getTable(),
        Key: accountKey(accountId),
        UpdateExpression: 'REMOVE #entry',
        // An update makes the item it does not find: never an account of one attribute.
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#entry': `${ENTRY}${id}` },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** The ids of the removals under way in the register as read (the account's item). */
export function removedIn(register: Item | undefined): Set<string> {
  return new Set(
    Object.keys(register ?? {})
      .filter((name) => name.startsWith(ENTRY))
      .map((name) => name.slice(ENTRY.length)),
  );
}

/** The register as a request reads it: once (with its account, or from the table), then the same for the whole request. */
const read = new WeakMap<object, Promise<Set<string>>>();

/** Keeps the register of the account item a request has read (findAccount), so nothing reads it again. */
export function knowRemovals(ahead: ReadAhead, account: Item): void {
  read.set(ahead, Promise.resolve(removedIn(account)));
}

/** The removals under way in the account, as read once per request (`ahead`: what it read ahead). */
export function removalsIn(accountId: string, ahead: ReadAhead | undefined, holder: object = ahead ?? {}): Promise<Set<string>> {
  let removals = read.get(holder);
  if (!removals) {
    removals = readItem(ahead, accountKey(accountId)).then(removedIn);
    read.set(holder, removals);
  }
  return removals;
}

const removalsOf = (scope: Scope): Promise<Set<string>> => removalsIn(scope.accountId, scope.readAhead, scope.readAhead ?? scope);

/** Whether `item` or one of its ancestors is among `removed`. */
export const hangsOnRemoved = (removed: ReadonlySet<string>, item: Record<string, unknown>): boolean =>
  removed.size > 0 && [item.id, ...ANCESTRY.map((name) => item[name])].some((id) => typeof id === 'string' && removed.has(id));

/** Whether a record carries any ancestry at all: only those need the register. */
const hasAncestry = (item: Record<string, unknown>) => ANCESTRY.some((name) => typeof item[name] === 'string');

/** Whether `item` is gone for the scope: it hangs on a record removed at once whose descendants are still being removed. */
export async function goneWithRemoval(scope: Scope, item: Record<string, unknown>): Promise<boolean> {
  return hasAncestry(item) && hangsOnRemoved(await removalsOf(scope), item);
}

/** Those of `items` that do not hang on a removal under way. */
export async function withoutRemoved<T extends object>(scope: Scope, items: T[]): Promise<T[]> {
  if (!items.some((item) => hasAncestry(item as Record<string, unknown>))) return items;
  const removed = await removalsOf(scope);
  return removed.size === 0 ? items : items.filter((item) => !hangsOnRemoved(removed, item as Record<string, unknown>));
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 56,
    name: 'Hide what hangs on a removal under way',
    operation:
      "None of its own: the register is the account item's `removed#<id>` attributes, read with the account (pattern 1 or 2, in the request's first BatchGetItem). A record whose own id or any of `productId`, `policyId`, `licenseId`, `machineId` the register names is not found: by id, by a unique value or a fingerprint, as a credential (a license token, whose lookup names its license, policy and product; a license key), by validation, and in lists (left out of its page; the count counts it until the worker has deleted it). The removal's own TransactWriteItems writes the entry on the account item (UpdateItem `SET removed#<id>`); the cascades worker removes it (UpdateItem `REMOVE removed#<id>` if the account exists) once its second pass is done. A removal finding 1,000 entries already (GetItem of the account) is refused (409) until some finish",
    index: 'table',
    key: '`PK = ACCOUNT#<acct>`',
    usedBy:
      'every request (`shared/store/removals.ts`); products, policies, licenses, machines delete and licenses.revoke when what hangs on the record is large',
    tests: ['http/cascades'],
  },
];
