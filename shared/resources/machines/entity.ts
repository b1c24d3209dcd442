/**
 * Machines: devices activated on a license. A fingerprint is unique per license, held by a
 * marker keyed by the SHA-256 of license id and fingerprint (fingerprints may be up to 4 KB), and
 * within the scope the policy's machineUniquenessStrategy names at the activation, judged by the
 * counts of its holders (shared/licensing/fingerprints.ts).
 */
import { digest } from '../../auth/secrets.ts';
import type { HolderRules } from '../../licensing/fingerprints.ts';
import { uniqueKey } from '../../store/keys.ts';
import type { Item, StoredItem, StoredRecord } from '../../store/records.ts';
import type { Scope } from '../../store/scope.ts';
import { findByUnique } from '../../store/unique.ts';

export interface MachineRecord extends StoredRecord {
  type: 'machines';
  licenseId: string;
  /** The license's environment (null: global), which may differ from the machine's (seats.ts). */
  licenseEnvironmentId: string | null;
  policyId: string;
  productId: string;
  /** The machine's owner: given at activation, else the license's owner. */
  ownerId: string | null;
  /** The license's owner at activation, who may also reach the machine. */
  licenseOwnerId: string | null;
  fingerprint: string;
  name: string | null;
  hostname: string | null;
  platform: string | null;
  /** What Keygen's SDKs send of the machine (hardware.ts); absent from machines activated before they were kept: read as null. */
  ip?: string | null;
  cores?: number | null;
  memory?: number | null;
  disk?: number | null;
  metadata: Record<string, unknown>;
  /** When the machine was last checked out (a machine file issued); absent until then. */
  lastCheckOut?: string | null;
  /** The cores counted in the license's core count (seats.ts): absent from machines activated before cores were counted. */
  countedCores?: number;
  /** The last ping (heartbeat.ts); under FROM_CREATION, the creation until the first ping. Absent: never pinged. */
  lastHeartbeat?: string | null;
  /** When `machine.heartbeat.dead` was emitted for this life of the machine (a ping that revives it clears it). */
  heartbeatDeathAnnounced?: string | null;
  /**
   * When the sweeper decided to deactivate the dead machine (machines/sweep.ts): from then on no
   * ping or reset changes it, and whichever sweep finds it finishes its removal.
   */
  heartbeatCullStarted?: string | null;
}

/**
 * The collections a machine joins, by the name of the parent it names: the order is the store's
 * (the first is GSI2, the next GSI3...), never to be changed (docs/data-model.md).
 */
export const MACHINE_PARENTS = { license: 'licenses', product: 'products', owner: 'users' } as const;

export const MACHINE_FINGERPRINT_MARKER = 'MACHINE_FINGERPRINT';

/** What a record that hangs on a machine (a component, a process) takes from it: its place in the licensing graph and its owners. */
export const underMachine = (machine: MachineRecord) => ({
  machineId: machine.id,
  licenseId: machine.licenseId,
  policyId: machine.policyId,
  productId: machine.productId,
  ownerId: machine.ownerId ?? null,
  licenseOwnerId: machine.licenseOwnerId ?? null,
});

/** The machine's place and owners, as a record hanging on it keeps them. */
export type UnderMachine = ReturnType<typeof underMachine>;

export const machineFingerprintValue = (licenseId: string, fingerprint: string) => digest(`${licenseId}:${fingerprint}`);

/** The marker holds a fingerprint on its license (what finds the machine); the policy, product and account count its holders. */
export const MACHINE_FINGERPRINTS: HolderRules = {
  kind: 'MACHINE',
  marker: {
    level: 'license',
    kind: MACHINE_FINGERPRINT_MARKER,
    value: (placement, fingerprint) => machineFingerprintValue(placement.licenseId, fingerprint),
  },
  counted: ['policy', 'product', 'account'],
  // Machines were unique per license only: the marker above.
  earlierMarkers: false,
};

/**
 * What a machine's fingerprint marker carries besides its `ref`, so that validation judges the
 * machine from the marker alone: its id, environment and license, when it was made, its last
 * heartbeat (kept in step by every change of it: heartbeat-writes.ts), and that its components
 * are in the device counts (fingerprints.ts). Markers of machines made before lack these:
 * validation then reads the machine and its components.
 */
export const machineMarkerFacts = (
  machine: Pick<MachineRecord, 'id' | 'environmentId' | 'licenseId' | 'created' | 'lastHeartbeat'>,
): MachineFacts => ({
  id: machine.id,
  environmentId: machine.environmentId,
  licenseId: machine.licenseId,
  created: machine.created,
  lastHeartbeat: machine.lastHeartbeat ?? null,
  componentsCounted: true,
});

/** A machine as its marker tells it (machineMarkerFacts), or as its record does for one made before. */
export interface MachineFacts {
  id: string;
  environmentId: string | null;
  licenseId: string;
  created: string;
  lastHeartbeat: string | null;
  /** Whether every component of the machine is in the device counts. */
  componentsCounted: boolean;
}

/** The facts a marker carries, if it carries them (undefined: a marker made before: read the machine). */
export function factsOfMarker(marker: Item): MachineFacts | undefined {
  if (typeof marker.created !== 'string' || typeof marker.id !== 'string') return undefined;
  return {
    id: marker.id,
    environmentId: (marker.environmentId as string | null | undefined) ?? null,
    licenseId: marker.licenseId as string,
    created: marker.created,
    lastHeartbeat: (marker.lastHeartbeat as string | null | undefined) ?? null,
    componentsCounted: marker.componentsCounted === true,
  };
}

/** The facts of a machine's record (one made before its marker carried them). */
export const factsOfRecord = (item: Item): MachineFacts => ({
  id: item.id as string,
  environmentId: (item.environmentId as string | null | undefined) ?? null,
  licenseId: item.licenseId as string,
  created: item.created as string,
  lastHeartbeat: (item.lastHeartbeat as string | null | undefined) ?? null,
  componentsCounted: false,
});

/** The key of the marker of a machine's fingerprint on its license. */
export const machineMarkerKey = (accountId: string, licenseId: string, fingerprint: string) =>
  uniqueKey(accountId, MACHINE_FINGERPRINT_MARKER, machineFingerprintValue(licenseId, fingerprint));

/** The machine of a license with this fingerprint, if the scope may read it. */
export const findMachineItem = (scope: Scope, licenseId: string, fingerprint: string): Promise<StoredItem<MachineRecord> | undefined> =>
  findByUnique(scope, 'machines', MACHINE_FINGERPRINT_MARKER, machineFingerprintValue(licenseId, fingerprint));
