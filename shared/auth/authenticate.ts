/**
 * Turns the Authorization header into a Bearer (docs/rules.md §6): the checks, their order
 * and their error codes live here once, for every route.
 */

import { LimitReached, NotAuthenticated } from '../errors.ts';
import type { Account } from '../resources/accounts/entity.ts';
import type { Environment } from '../resources/environments/entity.ts';
import { findLicenseItemByKey, type LicenseRecord } from '../resources/licenses/entity.ts';
import { requireStanding } from '../resources/licenses/standing.ts';
import { type TokenLookup, tokenOfLookup } from '../resources/tokens/entity.ts';
import { EMAIL_MARKER, normaliseEmail, type UserRecord } from '../resources/users/entity.ts';
import { type Key, type RecordType, recordKey, tokenLookupKey } from '../store/keys.ts';
import { hit } from '../store/rate-limit.ts';
import { type ReadAhead, readItem } from '../store/read-ahead.ts';
import { getItems, itemOfType, type StoredItem, toRecord } from '../store/records.ts';
import { hangsOnRemoved, removalsIn } from '../store/removals.ts';
import type { Scope } from '../store/scope.ts';
import { findByUnique } from '../store/unique.ts';
import { admits, type Bearer, kindOf } from './bearer.ts';
import { effectivePermissions } from './held.ts';
// Supplies what bearers hold to held.ts (shared/auth/held.ts says why it is supplied).
import './permissions.ts';
import { digest, looksLikeUuid, verifyPassword } from './secrets.ts';

const invalid = () => new NotAuthenticated('TOKEN_INVALID', 'Token is invalid');

/** The value of `Authorization: Bearer <value>`, if the header has that form. */
const bearerValue = (header: string | undefined) => (header && /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1]) || undefined;

/** The lookup key of the token in `Authorization: Bearer <token>`, read ahead by the pipeline; undefined if there is none to look up. */
export function bearerTokenKey(header: string | undefined): Key | undefined {
  const value = bearerValue(header);
  return value && !looksLikeUuid(value) ? tokenLookupKey(digest(value)) : undefined;
}

/**
 * The bearer behind `Authorization: Bearer <token>`, admitted into the requested environment.
 * One read: the token's lookup item holds what its holder acts as (see addToken); a license
 * token's license is read as well, for its standing.
 */
export async function authenticateToken(
  header: string | undefined,
  account: Account,
  environment: Environment | null,
  ahead?: ReadAhead,
): Promise<Bearer> {
  const value = bearerValue(header);
  if (!value) throw new NotAuthenticated('TOKEN_MISSING', 'An authentication token is required', 'Bearer');
  if (looksLikeUuid(value)) {
    throw new NotAuthenticated('TOKEN_FORMAT_INVALID', 'Token format is invalid (a token id was sent instead of a token value)');
  }
  const lookup = await readItem(ahead, tokenLookupKey(digest(value)));
  if (!lookup || lookup.accountId !== account.id) throw invalid();
  const token = tokenOfLookup(lookup);
  if (token.expiry && Date.parse(token.expiry) <= Date.now()) throw new NotAuthenticated('TOKEN_EXPIRED', 'Token is expired');
  if (!admits(environment, token.environmentId, token.bearerKind)) throw invalid();
  // A token of a record under a removal under way (a license of a removed policy) went with it (removals.ts).
  // A license's policy may have changed since its token was made (docs/rules.md §18.12): the license read tells it.
  const removals = await removalsIn(account.id, ahead);
  const license = token.bearerType === 'licenses' ? await requireLicenseTokenStanding(token) : undefined;
  if (hangsOnRemoved(removals, license ?? { id: token.bearerId })) throw invalid();
  return {
    kind: token.bearerKind,
    type: token.bearerType,
    id: token.bearerId,
    environmentId: token.environmentId,
    permissions: effectivePermissions(token.bearerKind, token.environmentId, token.permissions),
    tokenId: token.id,
    ...ancestry(token.bearerType, license ?? token),
  };
}

/**
 * A license token stands only while its license does (docs/rules.md §6.3): the license, its policy
 * and its owner read together in one BatchGetItem (the lookup names all three; a lookup written
 * before it carried the owner has its owner read after). The lookup cannot carry the license's
 * standing itself: suspending, renewing or banning would then rewrite every lookup of every token
 * of the license, and a policy's change of strategy those of all its licenses.
 */
async function requireLicenseTokenStanding(token: TokenLookup): Promise<StoredItem<LicenseRecord>> {
  const { accountId } = token;
  const keys = [recordKey(accountId, 'licenses', token.bearerId)];
  if (token.policyId) keys.push(recordKey(accountId, 'policies', token.policyId));
  if (token.ownerId) keys.push(recordKey(accountId, 'users', token.ownerId));
  const read = await getItems(keys);
  const license = itemOfType(
    'licenses',
    read.find((item) => item.type === 'licenses'),
  );
  // A license's delete removes its tokens' lookups first; one caught in between is gone already.
  if (!license) throw invalid();
  await requireStanding(license, 'token', read);
  return license;
}

/**
 * The license behind `Authorization: License <key>` (docs/rules.md §6.1), found through the marker
 * of its key and admitted into the requested environment like any bearer of its home; refused
 * while its standing stops it (403: its owner banned, suspended, expired under REVOKE_ACCESS).
 */
export async function authenticateLicenseKey(header: string, scope: Scope): Promise<Bearer> {
  const key = /^License\s+(?<key>\S+)\s*$/i.exec(header)?.groups?.key;
  if (!key) throw new NotAuthenticated('TOKEN_MISSING', 'A license key is required', 'Bearer');
  // The licenses a request's environment can read are exactly the ones it admits as bearers.
  const holder = await findLicenseItemByKey(scope, key);
  if (!holder) throw new NotAuthenticated('LICENSE_INVALID', 'License key is invalid');
  await requireStanding(holder, 'key');
  const environmentId = holder.environmentId ?? null;
  return {
    kind: 'license',
    type: 'licenses',
    id: holder.id,
    environmentId,
    permissions: effectivePermissions('license', environmentId, ['*']),
    ...ancestry('licenses', holder),
  };
}

/** Where a license bearer stands in the licensing graph (the license itself, or its token's lookup item). */
const ancestry = (type: RecordType, of: { productId?: string; policyId?: string }) =>
  type === 'licenses' ? { productId: of.productId, policyId: of.policyId } : {};

/**
 * The user behind `Authorization: Basic <email:password>` (only POST /tokens). Every failure
 * reads the same, and a password is hashed even for an unknown address, so neither the
 * answer nor its timing tells which part was wrong.
 */
export async function authenticateBasic(
  header: string | undefined,
  account: Account,
  environment: Environment | null,
  scope: Scope,
): Promise<UserRecord> {
  const credentials = header && /^Basic\s+(?<credentials>[A-Za-z0-9+/=]+)\s*$/i.exec(header)?.groups?.credentials;
  if (!credentials) throw new NotAuthenticated('TOKEN_MISSING', 'HTTP Basic credentials (email:password) are required', 'Basic');
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const email = colon < 0 ? '' : decoded.slice(0, colon);
  const password = colon < 0 ? '' : decoded.slice(colon + 1);

  await limitLogins(account.id, email);
  const user = email ? await findLoginUser(scope, email) : undefined;
  const verified = await verifyPassword(password, user?.passwordHash);
  const kind = user && kindOf(user);
  if (!verified || !user || !kind || !admits(environment, user.environmentId, kind)) {
    throw new NotAuthenticated('CREDENTIALS_INVALID', 'Email and password must be valid', 'Basic');
  }
  return user;
}

/** Login attempts per address and window: enough for people, too few to guess passwords. */
export const LOGINS_PER_WINDOW = 30;
const LOGIN_WINDOW_SECONDS = 15 * 60;

/** Counts a password guess for `email` (a log-in, or a password update naming the old one): 429 past the limit. */
export async function limitLogins(accountId: string, email: string): Promise<void> {
  const limit = await hit(`LOGIN#${accountId}#${digest(normaliseEmail(email))}`, LOGINS_PER_WINDOW, LOGIN_WINDOW_SECONDS);
  if (limit.allowed) return;
  throw new LimitReached('Too many login attempts for this address; try again later', limit);
}

/**
 * The user an address names among those the request could admit: the environment's own and,
 * from inside an environment, global ones too, whatever the environment's strategy (whether one
 * is admitted is `admits`'s call: global admins everywhere, other global users in SHARED
 * environments only). One marker, one record.
 */
async function findLoginUser(scope: Scope, email: string): Promise<UserRecord | undefined> {
  if (email.length > 255) return undefined;
  const candidates: Scope = { ...scope, readable: scope.environmentId === null ? [null] : [scope.environmentId, null] };
  const item = await findByUnique(candidates, 'users', EMAIL_MARKER, normaliseEmail(email));
  return item && toRecord('users', item);
}
