/**
 * Entitlements attached to policies and licenses (`/policies/<id>/entitlements`,
 * `/licenses/<id>/entitlements`; docs/rules.md §25.2). A license's effective set is its policy's
 * entitlements and its own. Attaching and detaching are all or nothing: every entitlement named is
 * checked against the sets as read, then the holder's set changes in one conditional write, which
 * a concurrent change of the same attachments makes fail; the sets are then read and checked again.
 */
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../auth/actor.ts';
import { authorize, relatable } from '../../auth/authorize.ts';
import { conflict, refused, ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { licenseNamed } from '../../licensing/aliases.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { type EntitlementHolder, recordKey } from '../../store/keys.ts';
import { type Page, type PageRequest, pageOf } from '../../store/paging.ts';
import { getItems, getVisibleItems, getVisibleRecords, type Item, isUuid, type StoredItem, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import type { LicenseRecord } from '../licenses/entity.ts';
import type { PolicyRecord } from '../policies/entity.ts';
import { now } from '../rules.ts';
import {
  type Attachment,
  addToSet,
  attachmentsIn,
  attachmentsOf,
  dropPointers,
  effectiveEntitlementIds,
  type Holder,
  holderOf,
  isTombstoned,
  pointAt,
  removeFromSet,
  requireNoneHeld,
  setKeyOf,
} from './attachments.ts';
import { attachmentDocument } from './document.ts';
import type { EntitlementRecord } from './entity.ts';

/** An entitlement named in a body: `{type: "entitlements", id}`. */
export interface EntitlementRef {
  id: string;
}

/** Attachments one policy or license holds at most, checked against its set as read. */
export const MAX_ATTACHMENTS = 1000;
/** Reads and commits before a change that keeps losing to concurrent ones is answered 409. */
const ATTEMPTS = 5;

/** What judges each kind of holder's attachments (shared/resources/entitlements/policy.ts). */
const ATTACHMENTS_OF = { policies: 'policy-entitlements', licenses: 'license-entitlements' } as const;
const SINGULAR = { policies: 'policy', licenses: 'license' } as const;

/**
 * The holder the path names (a license by its id or its key, docs/rules.md §11.2), on which the
 * bearer may do `action` (404 unseen, 403 refused).
 */
async function holderItem(actor: Actor, holder: EntitlementHolder, id: string, action: 'list' | 'attach' | 'detach'): Promise<HolderItem> {
  const item: HolderItem =
    holder === 'licenses'
      ? await authorize(actor, 'licenses', await licenseNamed(actor, id), 'read')
      : await authorize(actor, 'policies', id, 'read');
  await authorize(actor, ATTACHMENTS_OF[holder], item, action);
  return item;
}

/** A policy's or a license's stored item: what holds entitlements. */
type HolderItem = StoredItem<PolicyRecord> | StoredItem<LicenseRecord>;

const pointer = (index: number) => `/data/${index}`;

/** GET /policies/<id>/entitlements: the policy's. GET /licenses/<id>/entitlements: the license's effective set. */
export async function listHolderEntitlements(
  actor: Actor,
  holder: EntitlementHolder,
  id: string,
  page: PageRequest,
): Promise<Page<EntitlementRecord>> {
  return pageOf(await holderEntitlements(actor, holder, id), page);
}

/** Every entitlement a policy holds, or a license holds through its policy and its own, that the bearer may list there. */
export async function holderEntitlements(actor: Actor, holder: EntitlementHolder, id: string): Promise<EntitlementRecord[]> {
  const item = await holderItem(actor, holder, id, 'list');
  const ids =
    holder === 'licenses'
      ? await effectiveEntitlementIds(toRecord('licenses', item))
      : (await attachmentsOf(holderOf(item))).map((attachment) => attachment.entitlementId);
  return getVisibleRecords(actor.scope, 'entitlements', ids);
}

/** What an attach or a detach reads of the sets: the holder's own set item as read, its attachments and, for a license, its policy's. */
interface Sets {
  set: Item | undefined;
  own: Attachment[];
  policy: Attachment[];
}

/** The holder's own set and, for a license, its policy's: one BatchGetItem. */
async function setsOf(item: HolderItem): Promise<Sets> {
  const holder = holderOf(item);
  const policy =
    item.type === 'licenses' ? { accountId: holder.accountId, holder: 'policies' as const, holderId: item.policyId } : undefined;
  const keys = [setKeyOf(holder), ...(policy ? [setKeyOf(policy)] : [])];
  const items = await getItems(keys);
  const setAt = (index: number) => items.find((found) => found.PK === keys[index]?.PK);
  return { set: setAt(0), own: attachmentsIn(holder, setAt(0)), policy: policy ? attachmentsIn(policy, setAt(1)) : [] };
}

/** Those of `items` (entitlements) not being removed. */
const notRemoving = <I extends Item>(items: I[]): I[] => items.filter((item) => !item.removing);

/** Entitlements by id that exist and are not being removed (one BatchGetItem). */
async function attachableRecords(accountId: string, ids: readonly string[]): Promise<Item[]> {
  return notRemoving(await getItems(ids.map((id) => recordKey(accountId, 'entitlements', id))));
}

/**
 * The entitlements a body names, each found (one BatchGetItem: in the scope, within the bearer's
 * reach, not being removed) or undefined: an id that is no UUID names nothing.
 */
async function named(actor: Actor, refs: readonly EntitlementRef[]): Promise<(StoredItem<EntitlementRecord> | undefined)[]> {
  const ids = [...new Set(refs.map((ref) => ref.id.toLowerCase()).filter(isUuid))];
  const found = notRemoving(await getVisibleItems(actor.scope, 'entitlements', ids));
  const usable = new Map<string, StoredItem<EntitlementRecord>>();
  for (const item of found) if (await relatable(actor, 'entitlements', item)) usable.set(item.id, item);
  return refs.map((ref) => usable.get(ref.id.toLowerCase()));
}

/** POST /<holder>/<id>/entitlements: attaches every entitlement named, or none. */
export async function attachEntitlements(actor: Actor, holderType: EntitlementHolder, id: string, refs: readonly EntitlementRef[]) {
  const item = await holderItem(actor, holderType, id, 'attach');
  const holder = holderOf(item);
  const entitlements = await named(actor, refs);
  for (let attempt = 1; ; attempt++) {
    const sets = await setsOf(item);
    const ids = attachable(refs, entitlements, sets);
    const timestamp = now();
    const attachments: Attachment[] = ids.map((entitlementId) => ({ ...holder, id: randomUUID(), entitlementId, created: timestamp }));
    const changed = conflict('The entitlements changed while this request was made; retry it');
    // Pointers of an attach that is then refused stay (naming no attachment): one may be the
    // pointer a concurrent attach of the same entitlement committed with, overwritten.
    await pointAt(attachments);
    // Read again once the pointers are there: an entitlement whose removal began meanwhile is
    // refused here, and a removal that began later finds the pointers (attachments.ts).
    const still = new Set((await attachableRecords(holder.accountId, ids)).map((found) => found.id));
    const gone = ids.findIndex((entitlementId) => !still.has(entitlementId)); // ids[i] is what refs[i] names
    const ref = refs[gone];
    if (ref) throw notFound(ref, gone);
    const tx = new Transaction();
    addToSet(tx, holder, attachments, sets.set, changed);
    tx.requireExists({ PK: item.PK, SK: item.SK }, new RecordNotFound(holderType, id));
    if (item.type === 'licenses') {
      requireNoneHeld(tx, { accountId: holder.accountId, holder: 'policies', holderId: item.policyId }, ids, changed);
    }
    await emitEvent(
      tx,
      originOf(holder, actor.scope),
      `${SINGULAR[holderType]}.entitlements.attached`,
      attachments.map(attachmentDocument),
    );
    try {
      await tx.commit();
      return attachments;
    } catch (error) {
      if (error !== changed || attempt >= ATTEMPTS) throw error;
    }
  }
}

const notFound = (ref: EntitlementRef, index: number) =>
  ruleBroken('ENTITLEMENT_NOT_FOUND', `entitlement '${ref.id}' was not found`, pointer(index));

/** The ids to attach, in the body's order; 422 at the first entitlement that may not be attached. */
function attachable(refs: readonly EntitlementRef[], entitlements: readonly (StoredItem<EntitlementRecord> | undefined)[], sets: Sets) {
  const own = new Set(sets.own.map((a) => a.entitlementId));
  const throughPolicy = new Set(sets.policy.map((a) => a.entitlementId));
  const ids: string[] = [];
  for (const [index, ref] of refs.entries()) {
    const entitlement = entitlements[index];
    if (!entitlement || isTombstoned(sets.set, entitlement.id)) throw notFound(ref, index);
    const entitlementId = entitlement.id;
    if (own.has(entitlementId) || ids.includes(entitlementId)) {
      throw ruleBroken('ENTITLEMENT_TAKEN', `entitlement '${ref.id}' is already attached`, pointer(index));
    }
    if (throughPolicy.has(entitlementId)) {
      throw ruleBroken('ENTITLEMENT_CONFLICT', `entitlement '${ref.id}' is already attached through the policy`, pointer(index));
    }
    ids.push(entitlementId);
  }
  if (own.size + ids.length > MAX_ATTACHMENTS) {
    throw ruleBroken('ENTITLEMENTS_LIMIT_EXCEEDED', `a policy or a license holds at most ${MAX_ATTACHMENTS} entitlements`, '/data');
  }
  return ids;
}

/** DELETE /<holder>/<id>/entitlements: detaches every entitlement named, or none. */
export async function detachEntitlements(actor: Actor, holderType: EntitlementHolder, id: string, refs: readonly EntitlementRef[]) {
  const item = await holderItem(actor, holderType, id, 'detach');
  const holder: Holder = holderOf(item);
  for (let attempt = 1; ; attempt++) {
    const sets = await setsOf(item);
    const detached = detachable(refs, sets);
    const changed = conflict('The entitlements changed while this request was made; retry it');
    const tx = new Transaction();
    removeFromSet(tx, holder, detached, sets.set, changed);
    await emitEvent(tx, originOf(holder, actor.scope), `${SINGULAR[holderType]}.entitlements.detached`, detached.map(attachmentDocument));
    // The pointers only help find the attachments: once these are gone, they may go after the commit.
    tx.afterCommit(() => dropPointers(detached));
    try {
      await tx.commit();
      return;
    } catch (error) {
      if (error !== changed || attempt >= ATTEMPTS) throw error;
    }
  }
}

/**
 * The attachments to remove, in the body's order: 403 for one a license holds through its policy
 * (detach it from the policy), then 422 for one that is not attached (or named twice).
 */
function detachable(refs: readonly EntitlementRef[], sets: Sets): Attachment[] {
  const key = (ref: EntitlementRef) => ref.id.toLowerCase();
  for (const [index, ref] of refs.entries()) {
    if (sets.policy.some((a) => a.entitlementId === key(ref))) {
      throw refused(`Entitlement '${ref.id}' (${pointer(index)}) is attached through the policy: detach it from the policy`);
    }
  }
  const detached: Attachment[] = [];
  for (const [index, ref] of refs.entries()) {
    const attachment = sets.own.find((a) => a.entitlementId === key(ref));
    if (!attachment || detached.includes(attachment)) {
      throw ruleBroken('ENTITLEMENT_NOT_ATTACHED', `entitlement '${ref.id}' is not attached`, pointer(index));
    }
    detached.push(attachment);
  }
  return detached;
}
