/**
 * A license's seats: its policy's maxMachines counts every machine of the license, and maxCores
 * the cores they report, in whatever environment each was activated (docs/rules.md §21.3),
 * each with the overage the policy's strategy tolerates (policies/limits.ts). A global license's
 * machines may be activated globally and inside any SHARED environment; the per-environment
 * collection counters (what lists count) cannot bound them together, so each license has counts
 * of its own: its machines and their cores.
 *
 * - Each count (`licenseMachineCountKey`, `licenseCoreCountKey`, SK `#`, attribute `n`) changes
 *   in the transaction of every activation (with the limit as the update's own condition, so
 *   concurrent activations in different environments cannot pass it together), of every change
 *   of a machine's cores, and of every removal of a machine: its deactivation, its culling and
 *   the cascades of license, policy and product deletes. It carries its license's ENVPK, so it
 *   goes with a purged environment's licenses, and it is deleted with its license, once the
 *   license's machines have gone (shared/licensing/teardown.ts).
 * - A machine activated in an environment other than its license's (a global license's machine
 *   in a SHARED environment) is counted as well in that environment's share of each count (SK
 *   `E#<environmentId>`), which carries the environment's ENVPK. The purge of the environment
 *   deletes its machines in bulk without touching any count and gives each share back to its
 *   count (`giveBackShares`, shared/store/shares.ts).
 *
 * Shares of a deleted license stay behind at 0 until their environment goes: nothing but the
 * purge reads them, and it subtracts nothing from a count that is no longer there.
 */
import { ruleBroken } from '../../errors.ts';
import { environmentMembership, type Key, licenseCoreCountKey, licenseMachineCountKey } from '../../store/keys.ts';
import type { Item } from '../../store/records.ts';
import type { Transaction } from '../../store/transaction.ts';
import { allowance, type Limits } from '../policies/limits.ts';

/** What a machine needs to know of its seat: its own environment and its license's. */
interface Seated {
  accountId: string;
  environmentId: string | null;
  licenseId: string;
  licenseEnvironmentId: string | null;
}

type CountKey = (accountId: string, licenseId: string, environmentId?: string | null) => Key;

/** A count a machine is counted in, and the share it is also counted in, if any. */
function countsOf(machine: Seated, countKey: CountKey) {
  const licenseEnvironmentId = machine.licenseEnvironmentId;
  const environmentId = machine.environmentId ?? null;
  const membership = (environment: string | null) => (environment ? environmentMembership(machine.accountId, environment) : undefined);
  return {
    count: { key: countKey(machine.accountId, machine.licenseId), membership: membership(licenseEnvironmentId) },
    share:
      environmentId !== licenseEnvironmentId
        ? { key: countKey(machine.accountId, machine.licenseId, environmentId), membership: membership(environmentId) }
        : undefined,
  };
}

/** Adds `delta` to a count of the machine's license (and its share), bounded by `max` when it grows. */
function tallyLicense(tx: Transaction, machine: Seated, countKey: CountKey, delta: number, max?: { max: number; exceeded: Error }): void {
  const { count, share } = countsOf(machine, countKey);
  tx.tally(count.key, delta, { membership: count.membership, ...(max ?? {}) });
  if (share) tx.tally(share.key, delta, { membership: share.membership });
}

/**
 * The activation of `machine` takes a seat and `cores`: the transaction fails with 422
 * MACHINE_LIMIT_EXCEEDED or MACHINE_CORE_LIMIT_EXCEEDED beyond what the policy allows. The
 * machine keeps the cores counted (`countedCores`), what its removal gives back.
 */
export function takeSeat(tx: Transaction, machine: Seated, cores: number, limits: Limits): void {
  const machines = allowance(limits.maxMachines, limits.overageStrategy);
  tallyLicense(tx, machine, licenseMachineCountKey, 1, machines === null ? undefined : { max: machines, exceeded: machineLimit(limits) });
  changeCores(tx, machine, cores, limits);
}

/** A machine's cores change by `delta` (an activation, an update of `cores`), bounded by maxCores when they grow. */
export function changeCores(tx: Transaction, machine: Seated, delta: number, limits: Limits): void {
  if (delta === 0) return;
  const cores = allowance(limits.maxCores, limits.overageStrategy);
  tallyLicense(
    tx,
    machine,
    licenseCoreCountKey,
    delta,
    cores === null || delta < 0 ? undefined : { max: cores, exceeded: coreLimit(limits) },
  );
}

const machineLimit = ({ maxMachines }: Limits) =>
  ruleBroken('MACHINE_LIMIT_EXCEEDED', `the license has reached its machine limit (${maxMachines})`, '/data');

const coreLimit = ({ maxCores }: Limits) =>
  ruleBroken('MACHINE_CORE_LIMIT_EXCEEDED', `the license's machines would exceed its core limit (${maxCores})`, '/data');

/** Whether a machine holds a seat: one activated before seats were counted (no `licenseEnvironmentId`) holds none. */
export const holdsSeat = (machine: Item): boolean => machine.licenseEnvironmentId !== undefined;

/** A machine's removal failed: the cores it counts changed since it was read (read it again and retry). */
export class SeatChanged extends Error {}

/**
 * What a machine's removal requires to be still as read: the cores it gives back are those it
 * counts, so a concurrent change of its cores (which moves the license's count) makes the removal
 * fail rather than give back the cores read before it.
 */
export const seatAsRead = (machine: Item): Record<string, unknown> => ({ countedCores: machine.countedCores });

/** A machine removed in this transaction gives its seat and its cores back (its delete conditional on `seatAsRead`). */
export function giveSeatBack(tx: Transaction, machine: Item): void {
  if (!holdsSeat(machine)) return;
  const seated = machine as unknown as Seated;
  tallyLicense(tx, seated, licenseMachineCountKey, -1);
  // Machines activated before cores were counted have no countedCores: they give back none.
  const cores = Number(machine.countedCores ?? 0);
  if (cores) tallyLicense(tx, seated, licenseCoreCountKey, -cores);
}
