/**
 * Check-ins (docs/rules.md §18.8), Keygen's for semi-offline installs: a policy that requires them
 * gives each license a period (`checkInIntervalCount` days, weeks, months or years) within which
 * it must check in again; a license past it validates as OVERDUE. Policies made before these
 * attributes lack them: read with `checkInOf`.
 */
import { ruleBroken } from '../../errors.ts';
import { attributePointer } from '../rules.ts';

export const CHECK_IN_INTERVALS = ['day', 'week', 'month', 'year'] as const;
export type CheckInInterval = (typeof CHECK_IN_INTERVALS)[number];

/** How many intervals a period may span, as Keygen bounds it. */
export const CHECK_IN_INTERVAL_COUNT_MIN = 1;
export const CHECK_IN_INTERVAL_COUNT_MAX = 365;

export interface CheckIn {
  requireCheckIn: boolean;
  checkInInterval: CheckInInterval | null;
  checkInIntervalCount: number | null;
}

/** The check-in settings of a policy as stored (a record or an item; undefined, a policy gone: none required). */
export function checkInOf(stored: object | undefined): CheckIn {
  const policy = stored as Partial<Record<keyof CheckIn, unknown>> | undefined;
  return {
    requireCheckIn: (policy?.requireCheckIn as boolean | undefined) ?? false,
    checkInInterval: (policy?.checkInInterval as CheckInInterval | null | undefined) ?? null,
    checkInIntervalCount: (policy?.checkInIntervalCount as number | null | undefined) ?? null,
  };
}

/** A policy that requires check-ins names its period: an interval, and a count from 1 to 365 of it. */
export function judgeCheckIn({ requireCheckIn, checkInInterval, checkInIntervalCount }: CheckIn): void {
  const count = checkInIntervalCount;
  if (count !== null && (count < CHECK_IN_INTERVAL_COUNT_MIN || count > CHECK_IN_INTERVAL_COUNT_MAX)) {
    throw countInvalid();
  }
  if (!requireCheckIn) return;
  if (checkInInterval === null) {
    throw ruleBroken(
      'CHECK_IN_INTERVAL_NOT_ALLOWED',
      `checkInInterval must be one of ${CHECK_IN_INTERVALS.join(', ')} when requireCheckIn`,
      attributePointer('checkInInterval'),
    );
  }
  if (count === null) throw countInvalid();
}

const countInvalid = () =>
  ruleBroken(
    'CHECK_IN_INTERVAL_COUNT_INVALID',
    `checkInIntervalCount must be a number between ${CHECK_IN_INTERVAL_COUNT_MIN} and ${CHECK_IN_INTERVAL_COUNT_MAX} inclusive (required with requireCheckIn)`,
    attributePointer('checkInIntervalCount'),
  );

/**
 * When a license that last checked in at `lastCheckIn` (ISO 8601) must check in again, as an ISO
 * time; null when its policy does not require check-ins or it has never checked in. Months and
 * years are calendar ones (a check-in on 31 January is due by the last day of February).
 */
export function nextCheckInOf(lastCheckIn: string | null | undefined, checkIn: CheckIn): string | null {
  const { requireCheckIn, checkInInterval, checkInIntervalCount } = checkIn;
  if (!requireCheckIn || checkInInterval === null || checkInIntervalCount === null || !lastCheckIn) return null;
  const at = new Date(lastCheckIn);
  const count = checkInIntervalCount;
  switch (checkInInterval) {
    case 'day':
      at.setUTCDate(at.getUTCDate() + count);
      break;
    case 'week':
      at.setUTCDate(at.getUTCDate() + 7 * count);
      break;
    case 'month':
      return addMonths(at, count).toISOString();
    case 'year':
      return addMonths(at, 12 * count).toISOString();
  }
  return at.toISOString();
}

/** `at` plus `months` calendar months, the day kept or, past the month's end, its last day. */
function addMonths(at: Date, months: number): Date {
  const day = at.getUTCDate();
  const next = new Date(at);
  next.setUTCDate(1);
  next.setUTCMonth(next.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate();
  next.setUTCDate(Math.min(day, lastDay));
  return next;
}

/** Whether a license that last checked in at `lastCheckIn` is overdue at `at` (epoch ms). */
export function isCheckInOverdue(lastCheckIn: string | null | undefined, checkIn: CheckIn, at = Date.now()): boolean {
  const next = nextCheckInOf(lastCheckIn, checkIn);
  return next !== null && Date.parse(next) < at;
}
