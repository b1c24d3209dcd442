/**
 * One-time codes of a second factor (docs/rules.md §13.2): checking one, and spending the step it
 * matched in the same conditional update as the change it allows (entity.ts), so that no code is
 * accepted twice.
 */
import { matchingStep } from '../../auth/totp.ts';
import { NotAuthenticated } from '../../errors.ts';
import { getItem, type StoredItem } from '../../store/records.ts';
import type { Transaction } from '../../store/transaction.ts';
import type { UserRecord } from '../users/entity.ts';
import type { SecondFactor } from './entity.ts';

const AT_OTP = { pointer: '/meta/otp' };

export const otpRequired = () => new NotAuthenticated('OTP_REQUIRED', 'second factor is required', undefined, AT_OTP);
export const otpInvalid = () => new NotAuthenticated('OTP_INVALID', 'second factor must be valid', undefined, AT_OTP);

/** The user's second factor when it is enabled: log-ins and its removal then need a code. */
export const enabledFactor = (user: Pick<UserRecord, 'secondFactor'>) => (user.secondFactor?.enabled ? user.secondFactor : undefined);

/**
 * The step `otp` is a code of (401 OTP_REQUIRED when none is given, OTP_INVALID when it is none
 * of the current steps' or one of a step already spent).
 */
export function stepOf(user: Pick<UserRecord, 'otpStep'>, factor: SecondFactor, otp: string | undefined): number {
  if (otp === undefined) throw otpRequired();
  const step = matchingStep(factor.secret, otp);
  if (step === undefined || (user.otpStep !== undefined && step <= user.otpStep)) throw otpInvalid();
  return step;
}

/**
 * Writes `changes` to the user with `step` spent, on condition that no code of it or a later step
 * was accepted meanwhile, that the factor is still the one read and that the user still holds
 * `unchanged`; else `changed` (which `refusal` then tells apart from a spent code).
 */
export function spendStep(
  tx: Transaction,
  user: StoredItem<UserRecord>,
  factor: SecondFactor,
  step: number,
  changes: Record<string, unknown>,
  options: { unchanged?: Record<string, unknown>; changed: Error },
): StoredItem<UserRecord> {
  return tx.update(
    user,
    { ...changes, otpStep: step },
    {
      missing: options.changed,
      unchanged: { secondFactor: factor, ...options.unchanged },
      below: { otpStep: step },
      conflict: options.changed,
    },
  );
}

/**
 * Why a transaction `spendStep` wrote failed: the code was spent meanwhile by another request
 * (401 OTP_INVALID: it is refused as if spent first), or else `otherwise`.
 */
export async function refusal(user: StoredItem<UserRecord>, step: number, otherwise: Error): Promise<Error> {
  const current = await getItem({ PK: user.PK, SK: user.SK });
  const spent = typeof current?.otpStep === 'number' && current.otpStep >= step;
  return spent ? otpInvalid() : otherwise;
}
