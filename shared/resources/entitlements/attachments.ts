/**
 * Where entitlements are attached (docs/data-model.md, patterns 44–47). A policy's or a license's
 * attachments are one item, its set (`entitlementSetKey`), holding one attribute per attachment,
 * so that:
 *
 * - a license's effective set (its policy's attachments and its own) is one BatchGetItem of two
 *   items, whatever their size;
 * - attaching or detaching up to 100 entitlements is one conditional write of one item: all or
 *   nothing, judged on the set as read. Every write of a set adds 1 to its version `v`, and an
 *   attach or a detach requires the version it read, so of two concurrent changes of one set one
 *   wins and the other reads again. Its count `n` is set to the entries read and those added or
 *   removed, so a count that drifted from its entries is put right by the next change.
 *
 * Each attachment also leaves a pointer in the entitlement's own partition
 * (`entitlementHolderKey`), written before the set's commit and removed after a detach, so that
 * removing the entitlement finds every set that holds it. A pointer whose attachment never
 * committed is harmless: who follows it finds nothing to remove.
 *
 * Removing an entitlement races the attaches of it that read it before it went (an attach names
 * up to 100 entitlements: its commit has no room to check each record). The removal marks the
 * record first, and an attach reads the records again once its pointers are written, refusing
 * one marked; where a pointer names a set that does not hold the entitlement (an attach under
 * way), the removal leaves a tombstone in that set (`gone#<entitlementId>`, a write of the set:
 * the attach under way fails on the version, reads again and finds the tombstone). The set's next
 * attach or detach clears its tombstones: by then the entitlement is marked, which the re-read
 * of an attach catches.
 */
import { conflict } from '../../errors.ts';
import {
  type EntitlementHolder,
  entitlementHolderKey,
  entitlementHoldersPartition,
  entitlementSetKey,
  environmentMembership,
  type Key,
} from '../../store/keys.ts';
import { partitionItems } from '../../store/paging.ts';
import { getItem, getItems, type Item, itemOfType, type StoredRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';

/** A policy or a license, as a holder of entitlements. */
export interface Holder {
  accountId: string;
  holder: EntitlementHolder;
  holderId: string;
  /** The holder's environment: its attachments' too. */
  environmentId: string | null;
}

/** One entitlement attached to one holder. */
export interface Attachment extends Holder {
  id: string;
  entitlementId: string;
  created: string;
}

/** What a set holds of an attachment, under the attribute `entitlement#<entitlementId>`. */
interface Entry {
  id: string;
  created: string;
}

/** The license fields its effective set depends on. */
export type LicenseRef = { accountId: string; id: string; policyId: string };

const ENTRY = 'entitlement#';
const entryName = (entitlementId: string) => `${ENTRY}${entitlementId}`;
/** The attribute a removed entitlement leaves in a set an attach of it was under way to. */
const TOMBSTONE = 'gone#';
const tombstoneName = (entitlementId: string) => `${TOMBSTONE}${entitlementId}`;

const isEntitlementHolder = (value: unknown): value is EntitlementHolder => value === 'policies' || value === 'licenses';

/** A policy or license (record or stored item) as a holder. */
export function holderOf(record: Pick<StoredRecord, 'type' | 'accountId' | 'id' | 'environmentId'>): Holder {
  if (record.type !== 'policies' && record.type !== 'licenses') throw new Error(`A ${record.type} holds no entitlements`);
  return { accountId: record.accountId, holder: record.type, holderId: record.id, environmentId: record.environmentId ?? null };
}

export const setKeyOf = (holder: Pick<Holder, 'accountId' | 'holder' | 'holderId'>): Key =>
  entitlementSetKey(holder.accountId, holder.holder, holder.holderId);

/** The sets a license's effective set is read from: its policy's and its own. */
export const effectiveSetKeys = (license: LicenseRef): Key[] => [
  entitlementSetKey(license.accountId, 'policies', license.policyId),
  entitlementSetKey(license.accountId, 'licenses', license.id),
];

/** The attachments a set item holds (none when it does not exist). */
export function attachmentsIn(holder: Omit<Holder, 'environmentId'>, item: Item | undefined): Attachment[] {
  if (!item) return [];
  const environmentId = typeof item.environmentId === 'string' ? item.environmentId : null;
  return Object.entries(item)
    .filter(([name]) => name.startsWith(ENTRY))
    .map(([name, value]) => ({ ...holder, environmentId, entitlementId: name.slice(ENTRY.length), ...(value as Entry) }));
}

/** A holder's attachments, read strongly consistently. */
export async function attachmentsOf(holder: Omit<Holder, 'environmentId'>): Promise<Attachment[]> {
  return attachmentsIn(holder, await getItem(setKeyOf(holder)));
}

/**
 * The ids of the entitlements the set items among `items` hold, each once: what a license holds
 * when `items` are its two effective sets.
 */
export function heldIn(items: readonly Item[], setKeys: readonly Key[]): string[] {
  const wanted = new Set(setKeys.map((key) => key.PK));
  const ids = items
    .filter((item) => wanted.has(item.PK))
    .flatMap((item) => Object.keys(item).filter((name) => name.startsWith(ENTRY)))
    .map((name) => name.slice(ENTRY.length));
  return [...new Set(ids)];
}

/** The ids of a license's effective entitlements: its policy's and its own, one BatchGetItem. */
export async function effectiveEntitlementIds(license: LicenseRef): Promise<string[]> {
  const keys = effectiveSetKeys(license);
  return heldIn(await getItems(keys), keys);
}

/** The attribute of a set item counting its entries. */
const COUNT = 'n';
/** The attribute of a set item every write of it adds 1 to: what an attach or a detach requires as read. */
const VERSION = 'v';

/** The entries a set item holds, by their attributes (0 when it does not exist). */
const entriesIn = (item: Item | undefined): number => Object.keys(item ?? {}).filter((name) => name.startsWith(ENTRY)).length;

/** Whether a removed entitlement left its tombstone in this set item. */
export const isTombstoned = (item: Item | undefined, entitlementId: string): boolean => item?.[tombstoneName(entitlementId)] !== undefined;

/**
 * The tombstones a set item holds, to remove (null) with the next change of the set: that change
 * adds to the version, so an attach that read the set before a tombstone was left fails on it all
 * the same, and reads again an entitlement already marked as being removed.
 */
const clearedTombstones = (item: Item | undefined): Record<string, null> =>
  Object.fromEntries(
    Object.keys(item ?? {})
      .filter((name) => name.startsWith(TOMBSTONE))
      .map((name) => [name, null]),
  );

/**
 * Adds attachments to their holder's set (creating it), all or none: the transaction fails with
 * `changed` if any of them is there already or the set is no longer as read in `set` (another
 * change came first: the caller reads again, so the limit, the tombstones and what is attached
 * are judged on what is there).
 */
export function addToSet(tx: Transaction, holder: Holder, attachments: readonly Attachment[], set: Item | undefined, changed: Error): void {
  const { accountId, environmentId } = holder;
  const entries = Object.fromEntries(
    attachments.map((a) => [entryName(a.entitlementId), { id: a.id, created: a.created } satisfies Entry]),
  );
  const absent = Object.fromEntries(attachments.map((a) => [entryName(a.entitlementId), undefined]));
  const membership = environmentId ? { ENVPK: environmentMembership(accountId, environmentId) } : {};
  tx.patch(
    setKeyOf(holder),
    { accountId, environmentId, ...membership, ...clearedTombstones(set), ...entries, [COUNT]: entriesIn(set) + attachments.length },
    { [VERSION]: 1 },
    { state: { ...absent, [VERSION]: set?.[VERSION] }, changed },
  );
}

/** Removes attachments from their holder's set, all or none: the transaction fails with `changed` unless each and the set are as read in `set`. */
export function removeFromSet(
  tx: Transaction,
  holder: Holder,
  attachments: readonly Attachment[],
  set: Item | undefined,
  changed: Error,
): void {
  const removed = Object.fromEntries(attachments.map((a) => [entryName(a.entitlementId), null]));
  const asRead = Object.fromEntries(attachments.map((a) => [entryName(a.entitlementId), { id: a.id, created: a.created } satisfies Entry]));
  tx.patch(
    setKeyOf(holder),
    { ...clearedTombstones(set), ...removed, [COUNT]: entriesIn(set) - attachments.length },
    { [VERSION]: 1 },
    { state: { ...asRead, [VERSION]: set?.[VERSION] }, changed },
  );
}

/** Fails the transaction with `changed` if the holder's set holds any of these entitlements (e.g. a license's policy). */
export function requireNoneHeld(tx: Transaction, holder: Omit<Holder, 'environmentId'>, entitlementIds: readonly string[], changed: Error) {
  tx.requireState(setKeyOf(holder), Object.fromEntries(entitlementIds.map((id) => [entryName(id), undefined])), changed);
}

const pointerKey = (holder: Omit<Holder, 'environmentId'>, entitlementId: string) =>
  entitlementHolderKey(holder.accountId, entitlementId, holder.holder, holder.holderId);

/** The pointers of attachments about to be made, each naming its attachment (one transaction: at most 100 per attach). */
export async function pointAt(attachments: readonly Attachment[]): Promise<void> {
  const tx = new Transaction();
  for (const attachment of attachments) {
    const membership = attachment.environmentId ? { ENVPK: environmentMembership(attachment.accountId, attachment.environmentId) } : {};
    tx.put({
      ...pointerKey(attachment, attachment.entitlementId),
      holder: attachment.holder,
      holderId: attachment.holderId,
      attachment: attachment.id,
      ...membership,
    });
  }
  await tx.commit();
}

/**
 * Removes the pointers of attachments detached, each only while it names the attachment: an
 * attach of the same entitlement to the same holder right after the detach has pointed it at its
 * own attachment, which keeps it.
 */
export async function dropPointers(attachments: readonly Attachment[]): Promise<void> {
  const repointed = new Error('the pointer names a later attachment');
  await Promise.all(
    attachments.map(async (attachment) => {
      const tx = new Transaction();
      tx.remove(pointerKey(attachment, attachment.entitlementId), { state: { attachment: attachment.id }, changed: repointed });
      await tx.commit().catch((error: unknown) => {
        if (error !== repointed) throw error;
      });
    }),
  );
}

/** Operations per transaction when removing in bulk: DynamoDB takes at most 100. */
const BULK = 90;

/**
 * Removes the attachments of policies and licenses once their cascade has deleted them: each
 * set's pointers, then the set, in transactions of their own.
 */
export async function removeSetsOf(records: readonly Item[]): Promise<void> {
  const holders = records.flatMap((record) => {
    const item = itemOfType('policies', record) ?? itemOfType('licenses', record);
    return item ? [holderOf(item)] : [];
  });
  if (holders.length === 0) return;
  const sets = await getItems(holders.map(setKeyOf));
  const keys = holders.flatMap((holder) => {
    const set = sets.find((item) => item.PK === setKeyOf(holder).PK);
    if (!set) return [];
    return [...attachmentsIn(holder, set).map((attachment) => pointerKey(holder, attachment.entitlementId)), setKeyOf(holder)];
  });
  for (let i = 0; i < keys.length; i += BULK) {
    const tx = new Transaction();
    for (const key of keys.slice(i, i + BULK)) tx.remove(key);
    await tx.commit();
  }
}

/** Attachments per transaction when detaching an entitlement everywhere: two operations each. */
const DETACH_CHUNK = 40;
const ATTEMPTS = 3;

/**
 * Detaches an entitlement from every policy and license holding it, once its record is marked as
 * being removed (no attach that reads it from then on commits it): its pointers (a strongly
 * consistent Query of its partition), then per chunk the sets they name, and one transaction
 * removing the attribute from each set that still holds it (as read: a set changed meanwhile is
 * read again), leaving a tombstone in each set a pointer names that does not hold it (an attach
 * under way), and removing the pointers.
 */
export async function detachEverywhere(accountId: string, entitlementId: string): Promise<void> {
  const pointers = await partitionItems(undefined, entitlementHoldersPartition(accountId, entitlementId));
  const name = entryName(entitlementId);
  const holderAt = (pointer: Item) => {
    const { holder, holderId } = pointer;
    if (!isEntitlementHolder(holder) || typeof holderId !== 'string') throw new Error(`${pointer.PK} is not a holder's pointer`);
    return { accountId, holder, holderId };
  };
  for (let i = 0; i < pointers.length; i += DETACH_CHUNK) {
    const chunk = pointers.slice(i, i + DETACH_CHUNK);
    for (let attempt = 1; ; attempt++) {
      const changed = conflict('The entitlement’s holders changed while it was being removed; retry the request');
      const sets = await getItems(chunk.map((pointer) => setKeyOf(holderAt(pointer))));
      const tx = new Transaction();
      for (const pointer of chunk) {
        const key = setKeyOf(holderAt(pointer));
        const entry = sets.find((set) => set.PK === key.PK)?.[name];
        if (entry !== undefined) tx.patch(key, { [name]: null }, { [COUNT]: -1, [VERSION]: 1 }, { state: { [name]: entry }, changed });
        else {
          const membership = pointer.ENVPK === undefined ? {} : { ENVPK: pointer.ENVPK };
          const tombstone = { accountId, ...membership, [tombstoneName(entitlementId)]: true };
          tx.patch(key, tombstone, { [VERSION]: 1 }, { state: { [name]: undefined }, changed });
        }
        tx.remove({ PK: pointer.PK, SK: pointer.SK });
      }
      try {
        await tx.commit();
        break;
      } catch (error) {
        if (error !== changed || attempt >= ATTEMPTS) throw error;
      }
    }
  }
}
