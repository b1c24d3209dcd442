/**
 * The common shape of a change: write it and announce it in one transaction, so the event
 * exists exactly when the change does.
 */
import { emitEvent, originOf } from '../events/emit.ts';
import type { EventKind } from '../events/kinds.ts';
import type { ResourceObject } from '../jsonapi.ts';
import { RecordNotFound } from '../store/errors.ts';
import type { RecordType } from '../store/keys.ts';
import { type RecordOf, type StoredItem, toRecord } from '../store/records.ts';
import type { Scope } from '../store/scope.ts';
import { Transaction } from '../store/transaction.ts';

/** Sets `changes` on a stored record and emits `event` with the record's new document. */
export async function updateAndAnnounce<K extends RecordType>(
  type: K,
  item: StoredItem<RecordOf<K>>,
  changes: Record<string, unknown>,
  event: EventKind,
  document: (record: RecordOf<K>) => ResourceObject,
  scope: Scope,
): Promise<RecordOf<K>> {
  const tx = new Transaction();
  const { id } = item;
  const updated = toRecord(type, tx.update(item, changes, { missing: new RecordNotFound(type, id) }));
  await emitEvent(tx, originOf(updated, scope), event, document(updated));
  await tx.commit();
  return updated;
}
