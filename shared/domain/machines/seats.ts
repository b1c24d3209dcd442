/**
 * A license's seats: its policy's maxMachines counts every machine of the license, in whatever
 * environment it was activated (docs/rules.md §9). A global license's machines may be activated
 * globally and inside any SHARED environment; the per-environment collection counters (what
 * lists count) cannot bound them together, so each license has one count of its own.
 *
 * - The count (`licenseMachineCountKey`, SK `#`, attribute `n`) changes in the transaction of
 *   every activation (+1, with maxMachines as the update's own condition, so concurrent
 *   activations in different environments cannot pass it together) and of every removal of a
 *   machine (−1): its deactivation and the cascades of license, policy and product deletes. It
 *   carries its license's ENVPK, so it goes with a purged environment's licenses, and it is
 *   deleted with its license.
 * - A machine activated in an environment other than its license's (a global license's machine
 *   in a SHARED environment) is counted as well in that environment's share of the count (SK
 *   `E#<environmentId>`), which carries the environment's ENVPK. The purge of the environment
 *   deletes its machines in bulk without touching any count; `giveBackShares` then returns
 *   each share to its count, deleting the share and subtracting what it held in one
 *   transaction conditional on the share holding what was read. A re-run finds the share gone
 *   and subtracts nothing; a machine activated or removed meanwhile changes the share, and the
 *   share is read again. A machine written there after the share went (a request in flight at
 *   the delete) makes a new share, which the purge's second pass gives back.
 *
 * Shares of a deleted license stay behind at 0 until their environment goes: nothing but the
 * purge reads them, and it subtracts nothing from a count that is no longer there.
 */
import { environmentMembership, type Key, licenseMachineCountKey, machineCountOfShare } from '../../store/keys.ts';
import { backoff, getItems, type Item } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';

/** What a machine needs to know of its seat: its own environment and its license's. */
interface Seated {
  accountId: string;
  environmentId: string | null;
  licenseId: string;
  licenseEnvironmentId: string | null;
}

/** The count a machine's seat is taken from, and the share it is also counted in, if any. */
function seatOf(machine: Seated) {
  const licenseEnvironmentId = machine.licenseEnvironmentId;
  const environmentId = machine.environmentId ?? null;
  const membership = (environment: string | null) => (environment ? environmentMembership(machine.accountId, environment) : undefined);
  return {
    count: { key: licenseMachineCountKey(machine.accountId, machine.licenseId), membership: membership(licenseEnvironmentId) },
    share:
      environmentId !== licenseEnvironmentId
        ? { key: licenseMachineCountKey(machine.accountId, machine.licenseId, environmentId), membership: membership(environmentId) }
        : undefined,
  };
}

/** The activation of `machine` takes a seat: the transaction fails with `exceeded` when `max` are taken. */
export function takeSeat(tx: Transaction, machine: Seated, max: number | null | undefined, exceeded: Error): void {
  const { count, share } = seatOf(machine);
  tx.tally(count.key, 1, { membership: count.membership, ...(max != null ? { max, exceeded } : {}) });
  if (share) tx.tally(share.key, 1, { membership: share.membership });
}

/**
 * A machine removed in this transaction gives its seat back. A machine without
 * `licenseEnvironmentId` was activated before seats were counted and holds none.
 */
export function giveSeatBack(tx: Transaction, machine: Item): void {
  if (machine.licenseEnvironmentId === undefined) return;
  const { count, share } = seatOf(machine as unknown as Seated);
  tx.tally(count.key, -1, { membership: count.membership });
  if (share) tx.tally(share.key, -1, { membership: share.membership });
}

/** A license removed in this transaction takes its count with it. */
export function dropSeats(tx: Transaction, license: Item): void {
  tx.dropTally(licenseMachineCountKey(license.accountId as string, license.id as string));
}

class ShareChanged extends Error {}
class CountGone extends Error {}

const PARALLEL = 10;
const MAX_ATTEMPTS = 10;

/** A share of a license's seats, with the whole count it is part of. */
interface Share {
  shareKey: Key;
  countKey: Key;
}

/**
 * Gives back the seats held in a purged environment: every share among `keys` (items of the
 * environment, as the purge found them) is returned to its license's count and deleted.
 * Returns the other keys, for the purge to delete in bulk: a share is deleted only here, so a
 * share changed since it was read is never deleted with its seats still taken.
 */
export async function giveBackShares(keys: Key[]): Promise<Key[]> {
  const shares: Share[] = [];
  const others: Key[] = [];
  for (const key of keys) {
    const countKey = machineCountOfShare(key);
    if (countKey) shares.push({ shareKey: key, countKey });
    else others.push(key);
  }
  for (let i = 0; i < shares.length; i += PARALLEL) await Promise.all(shares.slice(i, i + PARALLEL).map(giveBackShare));
  return others;
}

async function giveBackShare({ shareKey, countKey }: Share): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const items = await getItems([shareKey, countKey]);
    const share = items.find((item) => item.SK === shareKey.SK);
    if (!share) return; // given back already
    const held = Number(share.n ?? 0);
    const counted = items.some((item) => item.SK === countKey.SK);
    const tx = new Transaction();
    tx.remove(shareKey, { state: { n: share.n }, changed: new ShareChanged() });
    // A count that is gone went with its license: there is nothing to give back to.
    if (counted && held !== 0) tx.tally(countKey, -held, { missing: new CountGone() });
    try {
      return await tx.commit();
    } catch (error) {
      if (!(error instanceof ShareChanged || error instanceof CountGone) || attempt >= MAX_ATTEMPTS) throw error;
      await backoff(attempt);
    }
  }
}
