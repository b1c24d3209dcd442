/**
 * What a policy allows a license to use at once (docs/rules.md §17.2): machines (node-locked: one;
 * floating: maxMachines), their cores, and processes, each with the overage its strategy tolerates.
 * Policies made before these attributes existed lack them: read with `limitsOf`.
 */

export const OVERAGE_STRATEGIES = [
  'NO_OVERAGE',
  'ALWAYS_ALLOW_OVERAGE',
  'ALLOW_1_25X_OVERAGE',
  'ALLOW_1_5X_OVERAGE',
  'ALLOW_2X_OVERAGE',
] as const;
export type OverageStrategy = (typeof OVERAGE_STRATEGIES)[number];

/** Whose processes maxProcesses counts: each machine's, or the license's across its machines. */
export const PROCESS_LEASING_STRATEGIES = ['PER_MACHINE', 'PER_LICENSE'] as const;
export type ProcessLeasingStrategy = (typeof PROCESS_LEASING_STRATEGIES)[number];

export interface Limits {
  /** Machines beyond the first allowed: false (node-locked) requires maxMachines 1. */
  floating: boolean;
  /** Validation also judges the counts (TOO_MANY_MACHINES, ...), not only the scopes. */
  strict: boolean;
  maxMachines: number | null;
  maxCores: number | null;
  maxProcesses: number | null;
  overageStrategy: OverageStrategy;
  processLeasingStrategy: ProcessLeasingStrategy;
}

/** floating's default: a policy for one machine is node-locked, any other floating. */
export const floatingByDefault = (maxMachines: number | null | undefined) => maxMachines !== 1;

/** The limits of a policy as stored (a record or an item; undefined, a policy gone: no limits). */
export function limitsOf(stored: object | undefined): Limits {
  const policy = stored as Partial<Record<keyof Limits, unknown>> | undefined;
  const maxMachines = (policy?.maxMachines as number | null | undefined) ?? null;
  return {
    floating: (policy?.floating as boolean | undefined) ?? floatingByDefault(maxMachines),
    strict: (policy?.strict as boolean | undefined) ?? false,
    maxMachines,
    maxCores: (policy?.maxCores as number | null | undefined) ?? null,
    maxProcesses: (policy?.maxProcesses as number | null | undefined) ?? null,
    overageStrategy: (policy?.overageStrategy as OverageStrategy | undefined) ?? 'NO_OVERAGE',
    processLeasingStrategy: (policy?.processLeasingStrategy as ProcessLeasingStrategy | undefined) ?? 'PER_MACHINE',
  };
}

const OVERAGE_FACTORS: Record<Exclude<OverageStrategy, 'ALWAYS_ALLOW_OVERAGE'>, number> = {
  NO_OVERAGE: 1,
  ALLOW_1_25X_OVERAGE: 1.25,
  ALLOW_1_5X_OVERAGE: 1.5,
  ALLOW_2X_OVERAGE: 2,
};

/**
 * How many a limit lets a license hold once its overage is counted (null: no bound): the limit
 * itself without overage, none under ALWAYS_ALLOW_OVERAGE, else the limit times the factor,
 * rounded down (the policy's rules make 1.25× and 1.5× whole numbers).
 */
export function allowance(limit: number | null, strategy: OverageStrategy): number | null {
  if (limit === null || strategy === 'ALWAYS_ALLOW_OVERAGE') return null;
  return Math.floor(limit * OVERAGE_FACTORS[strategy]);
}
