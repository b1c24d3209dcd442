/**
 * One-time codes of a second factor (docs/rules.md §13.2): checking one, and spending the step it
 * matched in the same conditional update as the change it allows (entity.ts), so that no code is
 * accepted twice.
 */
import { seal, unseal } from '../../auth/seal.ts';
import { matchingStep } from '../../auth/totp.ts';
import { LimitReached, NotAuthenticated } from '../../errors.ts';
import { hit } from '../../store/rate-limit.ts';
import { getItem, type StoredItem } from '../../store/records.ts';
import type { Transaction } from '../../store/transaction.ts';
import type { UserRecord } from '../users/entity.ts';
import type { SecondFactor } from './entity.ts';

const AT_OTP = { pointer: '/meta/otp' };

export const otpRequired = () => new NotAuthenticated('OTP_REQUIRED', 'second factor is required', undefined, AT_OTP);
export const otpInvalid = () => new NotAuthenticated('OTP_INVALID', 'second factor must be valid', undefined, AT_OTP);

/** What a factor's secret is sealed for (docs/rules.md §7.2): its user and itself, so a copy elsewhere does not unseal. */
const sealContext = (user: Pick<UserRecord, 'accountId' | 'id'>, factorId: string) =>
  `second-factor:${user.accountId}:${user.id}:${factorId}`;

/** A new factor's secret as stored: sealed (a TOTP secret cannot be hashed: codes are made from it). */
export const sealedSecret = (user: Pick<UserRecord, 'accountId' | 'id'>, factorId: string, secret: string) =>
  seal(secret, sealContext(user, factorId));

/** A factor's secret, unsealed. */
const secretOf = (user: Pick<UserRecord, 'accountId' | 'id'>, factor: SecondFactor) => unseal(factor.secret, sealContext(user, factor.id));

/** The user's second factor when it is enabled: log-ins and its removal then need a code. */
export const enabledFactor = (user: Pick<UserRecord, 'secondFactor'>) => (user.secondFactor?.enabled ? user.secondFactor : undefined);

/** Codes a user's factor checks in a window, right or wrong: at that pace a code takes months to guess. */
const CODES_PER_WINDOW = 10;
const CODE_WINDOW_SECONDS = 15 * 60;

/**
 * The step `otp` is a code of (401 OTP_REQUIRED when none is given, OTP_INVALID when it is none
 * of the current steps' or one of a step already spent). Every code given counts against the
 * user's limit of codes (429 past it, for right codes too), which bounds guessing by someone who
 * knows the password.
 */
export async function stepOf(
  user: Pick<UserRecord, 'accountId' | 'id' | 'otpStep'>,
  factor: SecondFactor,
  otp: string | undefined,
): Promise<number> {
  if (otp === undefined) throw otpRequired();
  const limit = await hit(`OTP#${user.accountId}#${user.id}`, CODES_PER_WINDOW, CODE_WINDOW_SECONDS);
  if (!limit.allowed) throw new LimitReached('Too many codes of this second factor were tried; try again later', limit);
  const step = matchingStep(await secretOf(user, factor), otp);
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
