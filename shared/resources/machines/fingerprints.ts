/**
 * Machines by fingerprint alone, across licenses: Keygen's SDKs name a machine by its fingerprint
 * (`GET|PATCH|DELETE /machines/<fingerprint>`), and one fingerprint may be activated on several
 * licenses. The uniqueness marker (machine.ts) finds a fingerprint within one license, which is
 * what a license bearer asks; every other bearer asks over all the licenses it sees, so each
 * machine also has an entry in its fingerprint's partition (docs/data-model.md), written in the
 * transaction that activates it and deleted in every transaction that removes it. An entry carries
 * its machine's ENVPK, so an environment's purge takes it with the machine.
 */
import { digest } from '../../auth/secrets.ts';
import { environmentMembership, type Key, machineFingerprintEntryKey, machinesByFingerprintPartition } from '../../store/keys.ts';
import { partitionItems } from '../../store/paging.ts';
import { getVisibleItems, type Item, type StoredItem } from '../../store/records.ts';
import { canRead, type Scope } from '../../store/scope.ts';
import type { Transaction } from '../../store/transaction.ts';
import type { MachineRecord } from './entity.ts';

/** What names a machine's entry: its account, id and fingerprint. */
interface Listed {
  accountId: string;
  id: string;
  fingerprint: string;
  environmentId: string | null;
}

const entryKey = (machine: Listed): Key => machineFingerprintEntryKey(machine.accountId, digest(machine.fingerprint), machine.id);

/** The activation of `machine` lists it under its fingerprint. */
export function listByFingerprint(tx: Transaction, machine: Listed): void {
  const environmentId = machine.environmentId ?? null;
  tx.put({
    ...entryKey(machine),
    machineId: machine.id,
    environmentId,
    ...(environmentId ? { ENVPK: environmentMembership(machine.accountId, environmentId) } : {}),
  });
}

/** A machine removed in this transaction leaves its fingerprint's partition. */
export function unlistByFingerprint(tx: Transaction, machine: Item): void {
  tx.remove(entryKey(machine as unknown as Listed));
}

/**
 * The machines holding `fingerprint` that the scope reads, whatever their license. Entries of
 * environments the scope does not read are passed over without reading their machines.
 */
export async function machinesWithFingerprint(scope: Scope, fingerprint: string): Promise<StoredItem<MachineRecord>[]> {
  const entries = await partitionItems(undefined, machinesByFingerprintPartition(scope.accountId, digest(fingerprint)));
  const readable = entries.filter((entry) =>
    canRead(scope, 'machines', typeof entry.environmentId === 'string' ? entry.environmentId : null),
  );
  if (readable.length === 0) return [];
  const machines = await getVisibleItems(
    scope,
    'machines',
    readable.map((entry) => String(entry.machineId)),
  );
  return machines.filter((machine) => machine.fingerprint === fingerprint);
}
