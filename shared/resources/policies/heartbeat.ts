/**
 * How a policy watches its machines' heartbeats (docs/rules.md §17.2): whether a machine must ping,
 * how long a ping keeps it alive, what happens to a machine that stops, and whether a late ping
 * may bring it back. Policies made before these attributes existed lack them: read with
 * `heartbeatOf`.
 */

/** DEACTIVATE_DEAD: a dead machine is removed (its seat freed); KEEP_DEAD: it stays, dead. */
export const HEARTBEAT_CULL_STRATEGIES = ['DEACTIVATE_DEAD', 'KEEP_DEAD'] as const;
export type HeartbeatCullStrategy = (typeof HEARTBEAT_CULL_STRATEGIES)[number];

/** Whether a dead machine's ping revives it: never, always, or within N minutes of its deadline. */
export const HEARTBEAT_RESURRECTION_STRATEGIES = [
  'NO_REVIVE',
  'ALWAYS_REVIVE',
  '1_MINUTE_REVIVE',
  '2_MINUTE_REVIVE',
  '5_MINUTE_REVIVE',
  '10_MINUTE_REVIVE',
  '15_MINUTE_REVIVE',
] as const;
export type HeartbeatResurrectionStrategy = (typeof HEARTBEAT_RESURRECTION_STRATEGIES)[number];

/** When a machine's heartbeat starts: at its first ping, or at its creation (only when required). */
export const HEARTBEAT_BASES = ['FROM_FIRST_PING', 'FROM_CREATION'] as const;
export type HeartbeatBasis = (typeof HEARTBEAT_BASES)[number];

/** Seconds a ping keeps a machine alive when the policy names no duration (Keygen's). */
export const HEARTBEAT_DURATION_DEFAULT = 600;
/** The shortest heartbeat duration, in seconds. */
export const HEARTBEAT_DURATION_MIN = 60;
/** The longest, in seconds: the largest 32-bit integer, as for a license's duration. */
export const HEARTBEAT_DURATION_MAX = 2_147_483_647;

export interface Heartbeat {
  requireHeartbeat: boolean;
  /** Seconds; null: HEARTBEAT_DURATION_DEFAULT. */
  heartbeatDuration: number | null;
  heartbeatCullStrategy: HeartbeatCullStrategy;
  heartbeatResurrectionStrategy: HeartbeatResurrectionStrategy;
  heartbeatBasis: HeartbeatBasis;
}

/** heartbeatBasis's default: a required heartbeat starts at creation, any other at the first ping. */
export const heartbeatBasisByDefault = (requireHeartbeat: boolean): HeartbeatBasis =>
  requireHeartbeat ? 'FROM_CREATION' : 'FROM_FIRST_PING';

/** The heartbeat rules of a policy as stored (a record or an item; undefined, a policy gone: the defaults). */
export function heartbeatOf(stored: object | undefined): Heartbeat {
  const policy = stored as Partial<Record<keyof Heartbeat, unknown>> | undefined;
  const requireHeartbeat = (policy?.requireHeartbeat as boolean | undefined) ?? false;
  return {
    requireHeartbeat,
    heartbeatDuration: (policy?.heartbeatDuration as number | null | undefined) ?? null,
    heartbeatCullStrategy: (policy?.heartbeatCullStrategy as HeartbeatCullStrategy | undefined) ?? 'DEACTIVATE_DEAD',
    heartbeatResurrectionStrategy: (policy?.heartbeatResurrectionStrategy as HeartbeatResurrectionStrategy | undefined) ?? 'NO_REVIVE',
    heartbeatBasis: (policy?.heartbeatBasis as HeartbeatBasis | undefined) ?? heartbeatBasisByDefault(requireHeartbeat),
  };
}

/** Seconds a ping keeps a machine (or a process) alive under these rules. */
export const heartbeatSeconds = (rules: Heartbeat) => rules.heartbeatDuration ?? HEARTBEAT_DURATION_DEFAULT;

/** Seconds after its deadline a dead machine may still be revived by a ping (Infinity: always; 0: never). */
export function revivalSeconds(strategy: HeartbeatResurrectionStrategy): number {
  if (strategy === 'NO_REVIVE') return 0;
  if (strategy === 'ALWAYS_REVIVE') return Number.POSITIVE_INFINITY;
  return Number.parseInt(strategy, 10) * 60;
}
