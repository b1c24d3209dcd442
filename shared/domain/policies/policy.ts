/** Policies: the rules licenses of a product follow, components' uniqueness and matching among them. */
import type { StoredRecord } from '../../store/records.ts';

export const UNIQUENESS_STRATEGIES = [
  'UNIQUE_PER_MACHINE',
  'UNIQUE_PER_LICENSE',
  'UNIQUE_PER_POLICY',
  'UNIQUE_PER_PRODUCT',
  'UNIQUE_PER_ACCOUNT',
] as const;
export type UniquenessStrategy = (typeof UNIQUENESS_STRATEGIES)[number];

/** Where a machine's fingerprint is unique: at least on its license. */
export const MACHINE_UNIQUENESS_STRATEGIES = [
  'UNIQUE_PER_LICENSE',
  'UNIQUE_PER_POLICY',
  'UNIQUE_PER_PRODUCT',
  'UNIQUE_PER_ACCOUNT',
] as const;
export type MachineUniquenessStrategy = (typeof MACHINE_UNIQUENESS_STRATEGIES)[number];

export const MATCHING_STRATEGIES = ['MATCH_ANY', 'MATCH_TWO', 'MATCH_MOST', 'MATCH_ALL'] as const;
export type MatchingStrategy = (typeof MATCHING_STRATEGIES)[number];

/**
 * How the licenses of a policy get their keys: null, random keys (or the key given); ED25519_SIGN,
 * keys signed with the account's key (shared/domain/licenses/signed-key.ts). Set at creation only.
 */
export const KEY_SCHEMES = ['ED25519_SIGN'] as const;
export type KeyScheme = (typeof KEY_SCHEMES)[number];

export interface PolicyRecord extends StoredRecord {
  type: 'policies';
  productId: string;
  name: string;
  componentUniquenessStrategy: UniquenessStrategy;
  /** Absent from policies made before it existed: read as UNIQUE_PER_LICENSE. */
  machineUniquenessStrategy?: MachineUniquenessStrategy;
  componentMatchingStrategy: MatchingStrategy;
  requireComponentsScope: boolean;
  protected: boolean;
  maxMachines: number | null;
  /** Absent from policies made before schemes existed: read as null. */
  scheme?: KeyScheme | null;
  metadata: Record<string, unknown>;
}
