/**
 * The common shape of a change: write it and announce it in one transaction, so the event
 * exists exactly when the change does.
 */
import { emitEvent, originOf } from '../events/emit.ts';
import type { EventKind } from '../events/kinds.ts';
import type { ResourceObject } from '../jsonapi.ts';
import { RecordNotFound } from '../store/errors.ts';
import { type Item, type StoredRecord, toRecord } from '../store/records.ts';
import type { Scope } from '../store/scope.ts';
import { Transaction } from '../store/transaction.ts';

/** Sets `changes` on a stored record and emits `event` with the record's new document. */
export async function updateAndAnnounce<T extends StoredRecord>(
  item: Item,
  changes: Record<string, unknown>,
  event: EventKind,
  document: (record: T) => ResourceObject,
  scope: Scope,
): Promise<T> {
  const tx = new Transaction();
  const updated = toRecord<T>(tx.update(item, changes, { missing: new RecordNotFound(item.type as string, item.id as string) }));
  await emitEvent(tx, originOf(updated, scope), event, document(updated));
  await tx.commit();
  return updated;
}
