/**
 * Machines: devices activated on a license. A fingerprint is unique per license, held by a
 * marker keyed by the SHA-256 of license id and fingerprint (fingerprints may be up to 4 KB), and
 * within the scope the policy's machineUniquenessStrategy names at the activation, judged by the
 * counts of its holders (shared/licensing/fingerprints.ts).
 */
import { digest } from '../../auth/secrets.ts';
import type { HolderRules } from '../../licensing/fingerprints.ts';
import type { AccessPattern, MarkerKind } from '../../store/data-model.ts';
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

/** The uniqueness markers its records hold (docs/data-model.md). */
export const MARKER_KINDS: readonly MarkerKind[] = [
  { kind: MACHINE_FINGERPRINT_MARKER, value: "SHA-256 of `<licenseId>:<fingerprint>`: a machine's fingerprint on its license" },
];

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

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 24,
    name: 'Machine by fingerprint within a license',
    operation: 'GetItem ×2 (`findByUnique`)',
    index: 'table',
    key: '`PK = A#<acct>#UNIQUE#MACHINE_FINGERPRINT#<sha256(license:fp)>`, then its `ref`',
    usedBy:
      'validation (fingerprint scope); held by every machine, whatever its strategy (43); `/machines/<fingerprint>` for a license bearer',
    tests: ['store/data-model'],
  },
  {
    n: 25,
    name: 'At most maxMachines per license, in every environment together',
    operation:
      "TransactWriteItems with the machine: Update `ADD n :1` of the license's machine count with `n <= :room`, and `ADD n :1` of the environment's share when the license is of another environment; `ADD n :-1` of both when a machine goes (deactivation, cascades, pattern 34); Delete of the count with its license",
    index: 'table',
    key: '`PK = A#<acct>#LICENSE#<id>#MACHINE_COUNT`, `SK = #` (share: `SK = E#<env>`)',
    usedBy: 'machines.create, machines.delete, license/policy/product delete',
    tests: ['store/data-model', 'http/machines', 'http/machine-seats'],
  },
  {
    n: 39,
    name: 'Machines by fingerprint across licenses',
    operation:
      "Query (consistent) of the fingerprint's partition, then BatchGetItem of the machines whose entries name an environment the scope reads",
    index: 'table',
    key: '`PK = A#<acct>#MACHINES_BY_FINGERPRINT#<sha256(fp)>`',
    usedBy: '`/machines/<fingerprint>` and its relationship routes, for bearers other than licenses (rules §11.2)',
    tests: ['http/sdk-compatibility'],
  },
  {
    n: 48,
    name: 'At most maxCores per license, in every environment together',
    operation:
      "TransactWriteItems with the machine: Update `ADD n :cores` of the license's core count with `n <= :room` (the allowance less the cores), and `ADD n :cores` of the environment's share when the license is of another environment; a PATCH of `cores` adds the difference (bounded when it grows), its machine's Update conditional on `countedCores = :read`; a deactivation adds `-countedCores`, its machine's Delete conditional on `countedCores = :read` (read again and retried when it changed); Delete of the count with its license; a strict validation reads it with pattern 25's count (BatchGetItem)",
    index: 'table',
    key: '`PK = A#<acct>#LICENSE#<id>#CORE_COUNT`, `SK = #` (share: `SK = E#<env>`)',
    usedBy: 'machines.create, machines.update, machines.delete, license/policy/product delete, validate, validate-key',
    tests: ['http/floating', 'http/machine-seats'],
  },
];
