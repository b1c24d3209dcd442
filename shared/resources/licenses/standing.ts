/**
 * A license's standing: what stops it before anything else is looked at, in Keygen's order — its
 * owner banned (BANNED), the license suspended (SUSPENDED), or expired under a policy whose
 * expirationStrategy is REVOKE_ACCESS (EXPIRED). Validation answers these as verdicts
 * (validation.ts); authentication refuses a license in such standing as a bearer, by its key or
 * by a license token (403 LICENSE_BANNED, LICENSE_SUSPENDED, LICENSE_EXPIRED: docs/rules.md §6.3),
 * and first one whose policy's authenticationStrategy does not admit the credential it came with
 * (403 LICENSE_NOT_ALLOWED, TOKEN_NOT_ALLOWED).
 */
import { refused } from '../../errors.ts';
import { type RecordType, recordKey } from '../../store/keys.ts';
import { getItems, type Item, itemOfType, type StoredItem } from '../../store/records.ts';
import {
  type AuthenticationStrategy,
  authenticationStrategyOf,
  type Expiration,
  expirationOf,
  type PolicyRecord,
} from '../policies/entity.ts';
import type { UserRecord } from '../users/entity.ts';
import { isExpired, type LicenseRecord } from './entity.ts';

export type Standing = 'BANNED' | 'SUSPENDED' | 'EXPIRED';

/** The first fact that stops the license, if any: `owner` is its owner as stored (undefined: none). */
export function standingOf(
  license: Pick<LicenseRecord, 'suspended' | 'expiry'> | Item,
  owner: Item | undefined,
  expiration: Expiration,
  at = Date.now(),
): Standing | undefined {
  if (owner?.status === 'BANNED') return 'BANNED';
  if (license.suspended === true) return 'SUSPENDED';
  if (expiration.expirationStrategy === 'REVOKE_ACCESS' && isExpired(license.expiry, at)) return 'EXPIRED';
  return undefined;
}

/** The item of `type` and `id` among those read. */
export const itemAmong = <K extends RecordType>(items: readonly Item[], type: K, id: string | null | undefined) =>
  id
    ? itemOfType(
        type,
        items.find((item) => item.type === type && item.id === id),
      )
    : undefined;

/**
 * The owner and the policy of a license, as its standing and its validation need them, taking
 * those among `read` and reading the rest in one BatchGetItem: the owner when it has one, the
 * policy unless `policyWhen` says it is not needed.
 */
export async function ownerAndPolicy(
  license: StoredItem<LicenseRecord>,
  read: readonly Item[] = [],
  policyWhen = true,
): Promise<{ owner: StoredItem<UserRecord> | undefined; policy: StoredItem<PolicyRecord> | undefined }> {
  const { accountId } = license;
  const wanted: [RecordType, string | null][] = [['users', license.ownerId]];
  if (policyWhen) wanted.push(['policies', license.policyId]);
  const missing = wanted.flatMap(([type, id]) => (id && !itemAmong(read, type, id) ? [recordKey(accountId, type, id)] : []));
  const items = missing.length > 0 ? [...read, ...(await getItems(missing))] : read;
  return { owner: itemAmong(items, 'users', license.ownerId), policy: itemAmong(items, 'policies', license.policyId) };
}

const REFUSALS: Record<Standing, [string, string]> = {
  BANNED: ['LICENSE_BANNED', 'License is banned (its owner is banned)'],
  SUSPENDED: ['LICENSE_SUSPENDED', 'License is suspended'],
  EXPIRED: ['LICENSE_EXPIRED', 'License is expired'],
};

/** How a license authenticates: by its key (`License <key>`) or by one of its tokens. */
export type LicenseCredential = 'key' | 'token';

/** The strategies that admit each credential. */
const ADMITTED: Record<LicenseCredential, readonly AuthenticationStrategy[]> = { key: ['LICENSE', 'MIXED'], token: ['TOKEN', 'MIXED'] };

/** Keygen's refusal of a credential its license's policy does not admit. */
const NOT_ALLOWED: Record<LicenseCredential, [string, string]> = {
  key: ['LICENSE_NOT_ALLOWED', 'License key authentication is not allowed by policy'],
  token: ['TOKEN_NOT_ALLOWED', 'Token authentication is not allowed by policy'],
};

/**
 * Refuses (403, with the code) a license that may not act as a bearer with `credential`: one its
 * policy's authenticationStrategy does not admit, then its standing. `read` holds what was read
 * with it already (its policy and owner, for a license token); a license key's authentication
 * reads its policy and owner in one more BatchGetItem.
 */
export async function requireStanding(
  license: StoredItem<LicenseRecord>,
  credential: LicenseCredential,
  read: readonly Item[] = [],
): Promise<void> {
  const { owner, policy } = await ownerAndPolicy(license, read);
  if (!ADMITTED[credential].includes(authenticationStrategyOf(policy))) {
    const [refusal, why] = NOT_ALLOWED[credential];
    throw refused(why, refusal);
  }
  const standing = standingOf(license, owner, expirationOf(policy));
  if (standing === undefined) return;
  const [code, detail] = REFUSALS[standing];
  throw refused(detail, code);
}
