/**
 * The policies' pools of keys (docs/rules.md §18.9), as Keygen keeps them: keys made ahead under a
 * policy that uses its pool, each taken once by a license created under it (licenses/service.ts)
 * or popped by `DELETE /policies/<id>/pool`. Who may: the keys policy (policy.ts).
 */
import type { Actor } from '../../auth/actor.ts';
import { authorize, authorizeAction, restriction } from '../../auth/authorize.ts';
import { conflict, ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { relatedItem, requireAncestry } from '../../licensing/graph.ts';
import { type Filter, type FilterValues, filteredList } from '../../licensing/lists.ts';
import { parentsOf } from '../../licensing/slots.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { uniqueKey } from '../../store/keys.ts';
import type { Page, PageRequest } from '../../store/paging.ts';
import { recordKeyOf, toRecord } from '../../store/records.ts';
import { Transaction, type UniqueClaim } from '../../store/transaction.ts';
import { LICENSE_KEY_MARKER, licenseKeyValue } from '../licenses/entity.ts';
import type { PolicyRecord } from '../policies/entity.ts';
import { attributePointer, maxLength, newRecord, now } from '../rules.ts';
import { keyDocument } from './document.ts';
import { type KeyRecord, POOL_KEY_MARKER, POOL_KEY_MAX, POOL_KEY_MIN, poolKeyValue } from './entity.ts';
import { withPooledKey } from './pool.ts';

const FILTERS: readonly Filter<'keys'>[] = [
  { params: ['policy'], parent: 'policy' },
  { params: ['product'], parent: 'product' },
];

/** A key's bounds (Keygen's: 8 characters to 1 KB). */
function keyRule(key: string): void {
  maxLength('key', key, POOL_KEY_MAX);
  if ([...key].length < POOL_KEY_MIN) {
    throw ruleBroken('KEY_TOO_SHORT', `key is too short (minimum is ${POOL_KEY_MIN} characters)`, attributePointer('key'));
  }
}

const keyTaken = () => ruleBroken('KEY_TAKEN', 'key has already been taken', attributePointer('key'));

/** The pool's claim of a key: no two keys of the account's pools alike. */
const poolClaim = (key: string): UniqueClaim => ({ kind: POOL_KEY_MARKER, value: poolKeyValue(key), taken: keyTaken() });

/** Fails the transaction unless no license holds `key` (Keygen: "is already being used as a license's key"). */
function requireNoLicenseHolds(tx: Transaction, accountId: string, key: string): void {
  tx.requireState(
    uniqueKey(accountId, LICENSE_KEY_MARKER, licenseKeyValue(key)),
    { ref: undefined },
    ruleBroken('KEY_CONFLICT', "is already being used as a license's key", attributePointer('key')),
  );
}

export async function createKey(actor: Actor, input: { key: string; policyId: string }): Promise<KeyRecord> {
  await authorizeAction(actor, 'keys', 'create');
  keyRule(input.key);
  const policy = toRecord('policies', await relatedItem(actor, 'policies', input.policyId, 'policy'));
  if (!policy.usePool) throw ruleBroken('POLICY_NOT_SUPPORTED', 'cannot be added to an unpooled policy', '/data/relationships/policy');
  const key: KeyRecord = {
    ...newRecord('keys', actor.scope),
    policyId: policy.id,
    productId: policy.productId,
    key: input.key,
  };
  const tx = new Transaction();
  tx.create(key, { parents: parentsOf('keys', { policy: policy.id, product: policy.productId }), unique: [poolClaim(key.key)] });
  requireNoLicenseHolds(tx, key.accountId, key.key);
  // Never into a pool whose policy is being removed.
  const policyGone = ruleBroken('POLICY_NOT_FOUND', 'policy was deleted', '/data/relationships/policy');
  tx.requireExists(recordKeyOf(policy), policyGone);
  requireAncestry(tx, key, ['products'], policyGone);
  await emitEvent(tx, originOf(key, actor.scope), 'key.created', keyDocument(key));
  await tx.commit();
  return key;
}

export async function retrieveKey(actor: Actor, id: string): Promise<KeyRecord> {
  return toRecord('keys', await authorize(actor, 'keys', id, 'read'));
}

export async function listKeys(
  actor: Actor,
  filters: FilterValues,
  page: PageRequest,
  forced: Record<string, string> = {},
): Promise<Page<KeyRecord>> {
  await authorizeAction(actor, 'keys', 'list');
  return filteredList(actor.scope, 'keys', FILTERS, filters, [restriction(actor, 'keys'), forced], page);
}

/** GET /policies/<id>/pool: the keys of a policy's pool the bearer may see. */
export async function listPool(actor: Actor, policyId: string, page: PageRequest): Promise<Page<KeyRecord>> {
  const policy = await authorize(actor, 'policies', policyId, 'read');
  return listKeys(actor, {}, page, { policyId: policy.id });
}

/** A new key swaps the pool's markers in the update itself: of two keys taking one value, one wins. */
export async function updateKey(actor: Actor, id: string, changes: { key?: string }): Promise<KeyRecord> {
  const item = await authorize(actor, 'keys', id, 'update');
  const current = toRecord('keys', item);
  const rekeyed = changes.key !== undefined && changes.key !== current.key;
  if (changes.key !== undefined) keyRule(changes.key);
  const tx = new Transaction();
  const updated = toRecord(
    'keys',
    tx.update(
      item,
      { ...changes, updated: now() },
      {
        missing: new RecordNotFound('keys', id),
        conflict: conflict('The key changed while this request was made; retry it'),
        ...(rekeyed && changes.key !== undefined
          ? { claim: [poolClaim(changes.key)], release: [{ kind: POOL_KEY_MARKER, value: poolKeyValue(current.key) }] }
          : {}),
      },
    ),
  );
  if (rekeyed && changes.key !== undefined) requireNoLicenseHolds(tx, current.accountId, changes.key);
  await emitEvent(tx, originOf(updated, actor.scope), 'key.updated', keyDocument(updated));
  await tx.commit();
  return updated;
}

export async function deleteKey(actor: Actor, id: string): Promise<void> {
  const item = await authorize(actor, 'keys', id, 'delete');
  const tx = new Transaction();
  // Only the key as read: its markers are those the delete removes.
  tx.delete(item, conflict('The key changed, or went, while this request was made; retry it'), { key: item.key });
  await emitEvent(tx, originOf(item, actor.scope), 'key.deleted', keyDocument(toRecord('keys', item)));
  await tx.commit();
}

/**
 * DELETE /policies/<id>/pool: takes one key out of the pool and answers it (Keygen's pop), with
 * the event `policy.pool.popped`. 422 POLICY_POOL_NOT_SUPPORTED for a policy without a pool,
 * POLICY_POOL_EMPTY for an empty one.
 */
export async function popKey(actor: Actor, policyId: string): Promise<KeyRecord> {
  const item = await authorize(actor, 'policies', policyId, 'pool.pop');
  const policy = toRecord('policies', item) as PolicyRecord;
  const pointer = '/data/relationships/pool';
  if (!policy.usePool) throw ruleBroken('POLICY_POOL_NOT_SUPPORTED', 'pool is not supported', pointer);
  return withPooledKey(actor.scope, policy, pointer, async (key, taken) => {
    const tx = new Transaction();
    // As read: a key changed meanwhile is taken by no one under its old value.
    tx.delete(key, taken, { key: key.key });
    await emitEvent(tx, originOf(key, actor.scope), 'policy.pool.popped', keyDocument(toRecord('keys', key)));
    await tx.commit();
    return toRecord('keys', key);
  });
}
