/**
 * Entitlements (who may do what: shared/resources/entitlements/policy.ts). Removing one detaches it
 * from every policy and license first.
 */
import type { Actor } from '../../auth/actor.ts';
import { authorize, authorizeAction, restriction } from '../../auth/authorize.ts';
import { conflict, ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { heldEntitlementIds } from '../../licensing/held-entitlements.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { listCollection, type Page, type PageRequest, pageOf } from '../../store/paging.ts';
import { getVisibleRecords, isUuid, toRecord } from '../../store/records.ts';
import { Transaction, type UniqueClaim } from '../../store/transaction.ts';
import { attributePointer, type Metadata, maxLength, metadataRule, newRecord, now } from '../rules.ts';
import { detachEverywhere } from './attachments.ts';
import { entitlementDocument } from './document.ts';
import { ENTITLEMENT_CODE_MARKER, type EntitlementRecord, entitlementCodeValue } from './entity.ts';

export interface EntitlementChanges {
  name?: string;
  code?: string;
  metadata?: Metadata;
}

export interface NewEntitlement extends EntitlementChanges {
  name: string;
  code: string;
}

/** Codes name actions in Keygen's paths and are looked up beside ids: neither may be mistaken for the other. */
const RESERVED_CODES = ['action', 'actions'];

function rules(attributes: EntitlementChanges): void {
  maxLength('name', attributes.name, 255);
  metadataRule(attributes.metadata);
  const { code } = attributes;
  if (code === undefined) return;
  maxLength('code', code, 255);
  if (isUuid(code)) throw ruleBroken('CODE_INVALID', 'code must not look like a UUID', attributePointer('code'));
  if (RESERVED_CODES.includes(code.toLowerCase())) {
    throw ruleBroken('CODE_NOT_ALLOWED', `code '${code}' is reserved`, attributePointer('code'));
  }
}

const codeClaim = (code: string): UniqueClaim => ({
  kind: ENTITLEMENT_CODE_MARKER,
  value: entitlementCodeValue(code),
  taken: ruleBroken('CODE_TAKEN', 'code has already been taken', attributePointer('code')),
});

export async function createEntitlement(actor: Actor, input: NewEntitlement): Promise<EntitlementRecord> {
  await authorizeAction(actor, 'entitlements', 'create');
  rules(input);
  const entitlement: EntitlementRecord = {
    ...newRecord('entitlements', actor.scope),
    name: input.name,
    code: input.code,
    metadata: input.metadata ?? {},
  };
  const tx = new Transaction();
  tx.create(entitlement, { unique: [codeClaim(entitlement.code)] });
  await emitEvent(tx, originOf(entitlement, actor.scope), 'entitlement.created', entitlementDocument(entitlement));
  await tx.commit();
  return entitlement;
}

export async function retrieveEntitlement(actor: Actor, id: string): Promise<EntitlementRecord> {
  return toRecord('entitlements', await authorize(actor, 'entitlements', id, 'read'));
}

/** A new code swaps the markers in the update itself: of two records taking one code, one wins. */
export async function updateEntitlement(actor: Actor, id: string, changes: EntitlementChanges): Promise<EntitlementRecord> {
  const item = await authorize(actor, 'entitlements', id, 'update');
  rules(changes);
  const current = toRecord('entitlements', item);
  const recoded = changes.code !== undefined && entitlementCodeValue(changes.code) !== entitlementCodeValue(current.code);
  const tx = new Transaction();
  const next = toRecord(
    'entitlements',
    tx.update(
      item,
      { ...changes, updated: now() },
      {
        missing: new RecordNotFound('entitlements', id),
        conflict: conflict('The entitlement changed while this request was made; retry it'),
        claim: recoded && changes.code !== undefined ? [codeClaim(changes.code)] : [],
        release: recoded ? [{ kind: ENTITLEMENT_CODE_MARKER, value: entitlementCodeValue(current.code) }] : [],
      },
    ),
  );
  await emitEvent(tx, originOf(next, actor.scope), 'entitlement.updated', entitlementDocument(next));
  await tx.commit();
  return next;
}

/**
 * Marks the entitlement as being removed (attaches refuse it from then on), detaches it
 * everywhere, then removes it with its code in a last transaction. A removal cut short leaves
 * the mark, and the next DELETE finishes it.
 */
export async function deleteEntitlement(actor: Actor, id: string): Promise<void> {
  const item = await authorize(actor, 'entitlements', id, 'delete');
  const removed = toRecord('entitlements', item);
  if (!removed.removing) {
    const mark = new Transaction();
    mark.update(item, { removing: true }, { missing: new RecordNotFound('entitlements', id) });
    await mark.commit();
  }
  await detachEverywhere(removed.accountId, removed.id);
  const tx = new Transaction();
  tx.delete(item, new RecordNotFound('entitlements', id));
  await emitEvent(tx, originOf(removed, actor.scope), 'entitlement.deleted', entitlementDocument(removed));
  await tx.commit();
}

/** Every entitlement the scope shows, or a licensee's: those it holds. */
export async function listEntitlements(actor: Actor, page: PageRequest): Promise<Page<EntitlementRecord>> {
  await authorizeAction(actor, 'entitlements', 'list');
  if (restriction(actor, 'entitlements').heldBy === undefined) {
    return listCollection(actor.scope, { type: 'entitlements' }, page);
  }
  return pageOf(await getVisibleRecords(actor.scope, 'entitlements', await heldEntitlementIds(actor.scope, actor.bearer)), page);
}
