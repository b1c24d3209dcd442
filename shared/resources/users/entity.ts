/**
 * Users: people who log in to an account. A user without a password is a managed user.
 * E-mail addresses are unique per account, compared case-insensitively.
 */
import type { StoredRecord } from '../../store/records.ts';

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
}

export const EMAIL_MARKER = 'EMAIL';

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

export const isManaged = (user: UserRecord) => !user.passwordHash;
