/**
 * Policies: the rules licenses of a product follow: components' uniqueness and matching among
 * them, and how long a license lasts and what its expiry means (Keygen's expiration model).
 */
import type { StoredRecord } from '../../store/records.ts';
import type { CheckInInterval } from './check-in.ts';
import type { HeartbeatBasis, HeartbeatCullStrategy, HeartbeatResurrectionStrategy } from './heartbeat.ts';
import type { OverageStrategy, ProcessLeasingStrategy } from './limits.ts';

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
 * keys signed with the account's key (shared/resources/licenses/signed-key.ts). Set at creation only.
 */
export const KEY_SCHEMES = ['ED25519_SIGN'] as const;
export type KeyScheme = (typeof KEY_SCHEMES)[number];

/**
 * What an expired license may still do (docs/rules.md §18.4): RESTRICT_ACCESS, validate as EXPIRED
 * (not valid) but authenticate; REVOKE_ACCESS, neither (EXPIRED first, and no `License <key>`);
 * MAINTAIN_ACCESS and ALLOW_ACCESS, validate as EXPIRED yet valid.
 */
export const EXPIRATION_STRATEGIES = ['RESTRICT_ACCESS', 'REVOKE_ACCESS', 'MAINTAIN_ACCESS', 'ALLOW_ACCESS'] as const;
export type ExpirationStrategy = (typeof EXPIRATION_STRATEGIES)[number];

/** When a license of a policy with a duration gets its expiry: made, first validated, or first given a machine. */
export const EXPIRATION_BASES = ['FROM_CREATION', 'FROM_FIRST_VALIDATION', 'FROM_FIRST_ACTIVATION'] as const;
export type ExpirationBasis = (typeof EXPIRATION_BASES)[number];

/** What a renewal adds the duration to: the expiry, now, or now only once the license has expired. */
export const RENEWAL_BASES = ['FROM_EXPIRY', 'FROM_NOW', 'FROM_NOW_IF_EXPIRED'] as const;
export type RenewalBasis = (typeof RENEWAL_BASES)[number];

/**
 * How a license under the policy may act as a bearer (docs/rules.md §6.3): by a license token
 * (TOKEN), by its key (LICENSE), both (MIXED, the default here, so that policies made before the
 * attribute keep both; Keygen's default is TOKEN), or neither (NONE).
 */
export const AUTHENTICATION_STRATEGIES = ['TOKEN', 'LICENSE', 'MIXED', 'NONE'] as const;
export type AuthenticationStrategy = (typeof AUTHENTICATION_STRATEGIES)[number];

/**
 * What a license moved to a policy (docs/rules.md §18.12) does with its expiry: keeps it (Keygen's
 * default), or starts the policy's duration afresh (null for a policy without one).
 */
export const TRANSFER_STRATEGIES = ['KEEP_EXPIRY', 'RESET_EXPIRY'] as const;
export type TransferStrategy = (typeof TRANSFER_STRATEGIES)[number];

/** A policy's transfer strategy as stored (absent from policies made before it: KEEP_EXPIRY). */
export const transferStrategyOf = (stored: object | undefined): TransferStrategy =>
  (stored as { transferStrategy?: TransferStrategy } | undefined)?.transferStrategy ?? 'KEEP_EXPIRY';

/** A policy's authentication strategy as stored (a record or an item; undefined, a policy gone: the default). */
export const authenticationStrategyOf = (stored: object | undefined): AuthenticationStrategy =>
  (stored as { authenticationStrategy?: AuthenticationStrategy } | undefined)?.authenticationStrategy ?? 'MIXED';

/** A duration's bounds, in seconds: a day, and the largest 32-bit integer (Keygen's). */
export const DURATION_MIN = 86_400;
export const DURATION_MAX = 2_147_483_647;

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
  /** Seconds a license lasts (null: perpetual). This and the three below are absent from policies made before them: read with `expirationOf`. */
  duration?: number | null;
  expirationStrategy?: ExpirationStrategy;
  expirationBasis?: ExpirationBasis;
  renewalBasis?: RenewalBasis;
  /**
   * Limits and heartbeats (limits.ts, heartbeat.ts): absent from policies made before them, read
   * with `limitsOf` and `heartbeatOf`. `floating` and `heartbeatBasis` are kept only when given:
   * their defaults follow maxMachines and requireHeartbeat.
   */
  floating?: boolean;
  strict?: boolean;
  maxCores?: number | null;
  maxProcesses?: number | null;
  overageStrategy?: OverageStrategy;
  processLeasingStrategy?: ProcessLeasingStrategy;
  requireHeartbeat?: boolean;
  heartbeatDuration?: number | null;
  heartbeatCullStrategy?: HeartbeatCullStrategy;
  heartbeatResurrectionStrategy?: HeartbeatResurrectionStrategy;
  heartbeatBasis?: HeartbeatBasis;
  /** The uses a license may count (docs/rules.md §18.6); null: unlimited. Absent from policies made before it: null. */
  maxUses?: number | null;
  /** The users a license may have, its owner included (docs/rules.md §18.11); null: unlimited. Absent from policies made before it: null. */
  maxUsers?: number | null;
  /** Absent from policies made before it: read with `authenticationStrategyOf` (MIXED). */
  authenticationStrategy?: AuthenticationStrategy;
  /** Absent from policies made before it: read with `transferStrategyOf` (KEEP_EXPIRY). */
  transferStrategy?: TransferStrategy;
  /** Check-ins (check-in.ts): absent from policies made before them, read with `checkInOf`. */
  requireCheckIn?: boolean;
  checkInInterval?: CheckInInterval | null;
  checkInIntervalCount?: number | null;
  /** Its licenses take their keys from its pool (shared/resources/keys/); set at creation only. Absent: false. */
  usePool?: boolean;
  metadata: Record<string, unknown>;
}

/**
 * The collections a policy joins, by the name of the parent it names: the order is the store's
 * (the first is GSI2, the next GSI3...), never to be changed (docs/data-model.md).
 */
export const POLICY_PARENTS = { product: 'products' } as const;

/** A policy's expiration model, with the defaults for what a policy made before it lacks. */
export interface Expiration {
  duration: number | null;
  expirationStrategy: ExpirationStrategy;
  expirationBasis: ExpirationBasis;
  renewalBasis: RenewalBasis;
}

export const EXPIRATION_DEFAULTS: Expiration = {
  duration: null,
  expirationStrategy: 'RESTRICT_ACCESS',
  expirationBasis: 'FROM_CREATION',
  renewalBasis: 'FROM_EXPIRY',
};

/** The expiration model of a policy as stored (a record or an item; undefined: the defaults). */
export function expirationOf(stored: object | undefined): Expiration {
  const policy = stored as Partial<Record<keyof Expiration, unknown>> | undefined;
  return {
    duration: (policy?.duration as number | null | undefined) ?? EXPIRATION_DEFAULTS.duration,
    expirationStrategy: (policy?.expirationStrategy as ExpirationStrategy | undefined) ?? EXPIRATION_DEFAULTS.expirationStrategy,
    expirationBasis: (policy?.expirationBasis as ExpirationBasis | undefined) ?? EXPIRATION_DEFAULTS.expirationBasis,
    renewalBasis: (policy?.renewalBasis as RenewalBasis | undefined) ?? EXPIRATION_DEFAULTS.renewalBasis,
  };
}
