/**
 * Users: people who log in to an account. A user without a password is a managed user.
 * E-mail addresses are unique per account, compared case-insensitively.
 */

import type { AccessPattern, MarkerKind } from '../../store/data-model.ts';
import type { StoredRecord } from '../../store/records.ts';
import type { SecondFactor } from '../second-factors/entity.ts';

export const ROLES = ['user', 'admin'] as const;
export type UserRole = (typeof ROLES)[number];
export type UserStatus = 'ACTIVE' | 'BANNED';

export interface UserRecord extends StoredRecord {
  type: 'users';
  email: string;
  firstName: string | null;
  lastName: string | null;
  role: UserRole;
  status: UserStatus;
  metadata: Record<string, unknown>;
  /** scrypt hash; absent for a managed user. */
  passwordHash?: string;
  /** A password reset asked for and not yet fulfilled (shared/resources/passwords/): its token's digest and expiry. */
  passwordResetDigest?: string;
  passwordResetExpiry?: string;
  /** The user's second factor, if any (shared/resources/second-factors/). */
  secondFactor?: SecondFactor;
  /** The step of the last one-time code accepted: no code of it or an earlier step is accepted again. */
  otpStep?: number;
}

export const EMAIL_MARKER = 'EMAIL';

/** The uniqueness markers its records hold (docs/data-model.md). */
export const MARKER_KINDS: readonly MarkerKind[] = [{ kind: EMAIL_MARKER, value: "a user's e-mail address, lower-cased" }];

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

export const isManaged = (user: UserRecord) => !user.passwordHash;

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 4,
    name: 'User by e-mail (login, reset worker)',
    operation:
      "GetItem ×2 (`findByUnique`: the record only if the scope reads it; a login from inside an environment reads the environment's own users and the global ones, `admits` then decides)",
    index: 'table',
    key: '`PK = A#<acct>#UNIQUE#EMAIL#<email>`, then its `ref`',
    usedBy: "`authenticateBasic`, password-reset worker (users of the request's own environment only)",
    tests: ['store/data-model'],
  },
];
