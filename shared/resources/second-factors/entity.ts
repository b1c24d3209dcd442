/**
 * Second factors (docs/rules.md §13.2): a user's TOTP secret (shared/auth/totp.ts), at most one
 * per user, kept on the user's own record. Kept there, a log-in reads it with the user it already
 * reads, and every code it accepts is spent by a conditional update of that record: the step a
 * code matched is written as the user's `otpStep` only if no code of that step or a later one was
 * accepted before, so a code (or an older one) seen once is refused ever after, even to two
 * requests sent at once.
 */
import type { AccessPattern } from '../../store/data-model.ts';

export interface SecondFactor {
  id: string;
  /** The shared secret, base32, sealed (codes.ts): shown once, in the otpauth:// URI the create answers with. */
  secret: string;
  /** Whether log-ins need a code: only once a code of it was verified. */
  enabled: boolean;
  created: string;
  updated: string;
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 63,
    name: 'Spend a one-time code (log-in, enabling, disabling, deleting a second factor)',
    operation:
      "TransactWriteItems: Update `SET otpStep = :step` (with the change, if any) if `attribute_not_exists(otpStep) OR otpStep < :step`, `secondFactor = :read` (and, for a log-in, `status`, `role` and `passwordHash` as read: the new token's holder still stands as it did); a failure reads the user again (GetItem) to tell a spent code (401 OTP_INVALID) from a change",
    index: 'table',
    key: '`PK = A#<acct>#USER#<id>`',
    usedBy: 'tokens.generate, secondFactors.create, .update, .remove',
    tests: ['http/second-factors'],
  },
];
