/**
 * What maxProcesses bounds (docs/rules.md §24.4): the live processes of a machine under the
 * policy's processLeasingStrategy PER_MACHINE, of a license across its machines under
 * PER_LICENSE, with the overage the policy's strategy tolerates (policies/limits.ts).
 *
 * Every process is counted in both counts whatever the strategy, so a policy that changes its
 * strategy is judged at once by a count that is right: its machine's (`machineProcessCountKey`,
 * carrying the machine's ENVPK) and its license's (`licenseProcessCountKey`, the license's
 * ENVPK). A process living in an environment other than the count's (a SHARED environment's
 * process on a global machine) is also counted in that environment's share of the count, which
 * the environment's purge gives back (shared/store/shares.ts), as for a license's seats
 * (shared/resources/machines/seats.ts). The process keeps the counts it joined on its item
 * (`counted`), so every delete of it (its own, the sweeper's, a cascade's) leaves them; a count
 * left at 0 is deleted. A machine's count goes with the machine, a license's with the license.
 */
import { ruleBroken } from '../../errors.ts';
import { environmentMembership, type Key, licenseProcessCountKey, machineProcessCountKey } from '../../store/keys.ts';
import type { StoredRecord } from '../../store/records.ts';
import type { HolderCount, Transaction } from '../../store/transaction.ts';
import { allowance, type Limits } from '../policies/limits.ts';
import type { ProcessRecord } from './entity.ts';

type CountKey = (accountId: string, ownerId: string, environmentId?: string | null) => Key;

/** Where a new process stands: its own environment, and those of its machine and its license. */
export interface ProcessPlacement {
  process: Pick<ProcessRecord, 'accountId' | 'environmentId' | 'machineId' | 'licenseId'>;
  machineEnvironmentId: string | null;
  licenseEnvironmentId: string | null;
}

const membership = (accountId: string, environmentId: string | null) =>
  environmentId ? environmentMembership(accountId, environmentId) : undefined;

/** A count of `countKey` owned by `ownerId` in `ownerEnvironmentId`, and its share when the process lives elsewhere. */
function countAndShare(placement: ProcessPlacement, countKey: CountKey, ownerId: string, ownerEnvironmentId: string | null): HolderCount[] {
  const { accountId, environmentId } = placement.process;
  const count = { key: countKey(accountId, ownerId), membership: membership(accountId, ownerEnvironmentId) };
  if (environmentId === ownerEnvironmentId) return [count];
  return [count, { key: countKey(accountId, ownerId, environmentId), membership: membership(accountId, environmentId) }];
}

/** The counts a new process joins (its item keeps them: its deletes leave them). */
export const processCounts = (placement: ProcessPlacement): HolderCount[] => [
  ...countAndShare(placement, machineProcessCountKey, placement.process.machineId, placement.machineEnvironmentId),
  ...countAndShare(placement, licenseProcessCountKey, placement.process.licenseId, placement.licenseEnvironmentId),
];

/**
 * Bounds the count the policy's processLeasingStrategy names by maxProcesses and its overage, in
 * the count's own update (it joined it in this transaction): of concurrent creates, only those
 * the bound leaves room for commit (422 MACHINE_PROCESS_LIMIT_EXCEEDED).
 */
export function boundProcesses(tx: Transaction, process: ProcessPlacement['process'], limits: Limits): void {
  const max = allowance(limits.maxProcesses, limits.overageStrategy);
  if (max === null) return;
  const perLicense = limits.processLeasingStrategy === 'PER_LICENSE';
  const key = perLicense
    ? licenseProcessCountKey(process.accountId, process.licenseId)
    : machineProcessCountKey(process.accountId, process.machineId);
  const exceeded = ruleBroken(
    'MACHINE_PROCESS_LIMIT_EXCEEDED',
    `process count has exceeded maximum allowed for ${perLicense ? 'license' : 'machine'} (${limits.maxProcesses})`,
    '/data',
  );
  // No change of its own: the bound rides on the count's +1 the create added.
  tx.tally(key, 0, { max, exceeded });
}

/** A machine removed in this transaction takes its process count with it (its processes go before it). */
export const dropMachineProcessCount = (tx: Transaction, machine: Pick<StoredRecord, 'accountId' | 'id'>): void =>
  tx.dropTally(machineProcessCountKey(machine.accountId, machine.id));
