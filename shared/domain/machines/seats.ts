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
 *   deletes its machines in bulk without touching any count and gives each share back to its
 *   count (`giveBackShares`, shared/store/shares.ts).
 *
 * Shares of a deleted license stay behind at 0 until their environment goes: nothing but the
 * purge reads them, and it subtracts nothing from a count that is no longer there.
 */
import { environmentMembership, licenseMachineCountKey } from '../../store/keys.ts';
import type { Item } from '../../store/records.ts';
import type { Transaction } from '../../store/transaction.ts';

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
