/**
 * The rules a policy's limits and heartbeat settings keep together (docs/rules.md §17.2, §17.3). They are
 * judged on the policy as it would be once changed (the stored attributes under the changes), so
 * an update naming one attribute cannot break a rule another attribute set.
 */
import { ruleBroken } from '../../errors.ts';
import { attributeCode, attributePointer } from '../rules.ts';
import { checkInOf, judgeCheckIn } from './check-in.ts';
import { HEARTBEAT_DURATION_MAX, HEARTBEAT_DURATION_MIN, type Heartbeat, heartbeatOf } from './heartbeat.ts';
import { type Limits, limitsOf } from './limits.ts';

/** The largest limit, as Keygen keeps them (a 32-bit integer); a license's uses too. */
export const LIMIT_MAX = 2_147_483_647;

/**
 * A limit a policy sets and a license may override, of uses (docs/rules.md §18.6) or of users
 * (§18.11): 0 to LIMIT_MAX, or null for none; else 422 `MAX_USES_INVALID` / `MAX_USERS_INVALID`.
 */
export function overridableLimitRule(attribute: 'maxUses' | 'maxUsers', limit: number | null | undefined): void {
  if (limit != null && (limit < 0 || limit > LIMIT_MAX)) {
    throw ruleBroken(
      `${attributeCode(attribute)}_INVALID`,
      `${attribute} must be from 0 to ${LIMIT_MAX} (or null for no limit)`,
      attributePointer(attribute),
    );
  }
}

/** The policy's limits and heartbeat settings, as stored under the changes. */
export const settingsOf = (policy: object) => ({ ...limitsOf(policy), ...heartbeatOf(policy) });

/** Breaks the first rule `policy` (stored attributes with the changes over them) does not keep. */
export function judgeSettings(policy: object): void {
  const settings = settingsOf(policy);
  judgeLimits(settings);
  judgeHeartbeat(settings);
  judgeCheckIn(checkInOf(policy));
}

function judgeLimits({ floating, maxMachines, maxCores, maxProcesses, overageStrategy }: Limits): void {
  for (const [attribute, value] of [
    ['maxMachines', maxMachines],
    ['maxCores', maxCores],
    ['maxProcesses', maxProcesses],
  ] as const) {
    if (value !== null && (value < 1 || value > LIMIT_MAX)) {
      throw ruleBroken(
        `${attributeCode(attribute)}_INVALID`,
        `${attribute} must be from 1 to ${LIMIT_MAX} (or null for no limit)`,
        attributePointer(attribute),
      );
    }
  }
  if (!floating && maxMachines !== 1) {
    throw ruleBroken(
      'MAX_MACHINES_INVALID',
      'maxMachines must be 1 for a node-locked policy (floating false)',
      attributePointer('maxMachines'),
    );
  }
  const divisor = overageStrategy === 'ALLOW_1_25X_OVERAGE' ? 4 : overageStrategy === 'ALLOW_1_5X_OVERAGE' ? 2 : undefined;
  if (divisor === undefined) return;
  if (!floating) {
    throw ruleBroken(
      'OVERAGE_STRATEGY_NOT_ALLOWED',
      `${overageStrategy} is not allowed for a node-locked policy`,
      attributePointer('overageStrategy'),
    );
  }
  const uneven = [maxMachines, maxCores, maxProcesses].some((limit) => limit !== null && limit % divisor !== 0);
  if (uneven) {
    throw ruleBroken(
      'OVERAGE_STRATEGY_NOT_ALLOWED',
      `${overageStrategy} needs maxMachines, maxCores and maxProcesses divisible by ${divisor}`,
      attributePointer('overageStrategy'),
    );
  }
}

function judgeHeartbeat({
  requireHeartbeat,
  heartbeatDuration,
  heartbeatCullStrategy,
  heartbeatResurrectionStrategy,
  heartbeatBasis,
}: Heartbeat) {
  if (heartbeatDuration !== null && (heartbeatDuration < HEARTBEAT_DURATION_MIN || heartbeatDuration > HEARTBEAT_DURATION_MAX)) {
    throw ruleBroken(
      'HEARTBEAT_DURATION_INVALID',
      `heartbeatDuration must be between ${HEARTBEAT_DURATION_MIN} and ${HEARTBEAT_DURATION_MAX} seconds (or null for 600)`,
      attributePointer('heartbeatDuration'),
    );
  }
  if (heartbeatResurrectionStrategy === 'ALWAYS_REVIVE' && heartbeatCullStrategy !== 'KEEP_DEAD') {
    throw ruleBroken(
      'HEARTBEAT_CULL_STRATEGY_NOT_ALLOWED',
      'heartbeatCullStrategy must be KEEP_DEAD when heartbeatResurrectionStrategy is ALWAYS_REVIVE',
      attributePointer('heartbeatCullStrategy'),
    );
  }
  // A machine is never culled for a heartbeat nobody asked it to send.
  if (heartbeatBasis === 'FROM_CREATION' && !requireHeartbeat) {
    throw ruleBroken(
      'HEARTBEAT_BASIS_NOT_ALLOWED',
      'heartbeatBasis FROM_CREATION needs requireHeartbeat',
      attributePointer('heartbeatBasis'),
    );
  }
}
