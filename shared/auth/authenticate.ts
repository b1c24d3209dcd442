/**
 * Turns the Authorization header into a Bearer (DECISIONS §1–2): the checks, their order
 * and their error codes live here once, for every route.
 */
import { config } from '../config.ts';
import type { Account } from '../domain/accounts/account.ts';
import type { Environment } from '../domain/environments/environment.ts';
import type { TokenRecord } from '../domain/tokens/token.ts';
import { findLicenseItemByKey } from '../domain/licenses/license.ts';
import { EMAIL_MARKER, normaliseEmail, type UserRecord } from '../domain/users/user.ts';
import { tooManyRequests, unauthorized } from '../http/errors.ts';
import { hit } from '../store/rate-limit.ts';
import { recordKey, tokenDigestKey, uniqueKey, type RecordType } from '../store/keys.ts';
import { getItem, toRecord, type Item } from '../store/records.ts';
import { admits, type Bearer } from './bearer.ts';
import { effectivePermissions, type BearerKind } from './permissions.ts';
import { digest, looksLikeUuid, verifyPassword } from './secrets.ts';

const challenge = (scheme: 'Bearer' | 'Basic') => ({ 'WWW-Authenticate': `${scheme} realm="${config.serviceName}"` });

const invalid = () => unauthorized('TOKEN_INVALID', 'Token is invalid');

/** The bearer behind `Authorization: Bearer <token>`, admitted into the requested environment. */
export async function authenticateToken(
  header: string | undefined,
  account: Account,
  environment: Environment | null,
): Promise<Bearer> {
  const match = header && /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('TOKEN_MISSING', 'An authentication token is required', challenge('Bearer'));
  const value = match[1]!;
  if (looksLikeUuid(value)) {
    throw unauthorized('TOKEN_FORMAT_INVALID', 'Token format is invalid (a token id was sent instead of a token value)');
  }
  const pointer = await getItem(tokenDigestKey(account.id, digest(value)));
  if (!pointer) throw invalid();
  const token = toRecord<TokenRecord>(pointer);
  if (token.expiry && Date.parse(token.expiry) <= Date.now()) throw unauthorized('TOKEN_EXPIRED', 'Token is expired');

  const holder = await getItem(recordKey(account.id, token.bearerType, token.bearerId));
  const kind = holder && bearerKind(token.bearerType, holder);
  if (!kind || !admits(environment, token.environmentId, kind)) throw invalid();
  return {
    kind,
    type: token.bearerType,
    id: token.bearerId,
    environmentId: token.environmentId,
    permissions: effectivePermissions(kind, token.permissions),
    tokenId: token.id,
    ...ancestry(holder),
  };
}

/**
 * The license behind `Authorization: License <key>` (DECISIONS §2), found through the marker
 * of its key and admitted into the requested environment like any bearer of its home.
 */
export async function authenticateLicenseKey(header: string, account: Account, environment: Environment | null): Promise<Bearer> {
  const match = /^License\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('TOKEN_MISSING', 'A license key is required', challenge('Bearer'));
  const holder = await findLicenseItemByKey(account.id, match[1]!);
  const environmentId = (holder?.environmentId as string | null | undefined) ?? null;
  if (!holder || !admits(environment, environmentId, 'license')) throw unauthorized('TOKEN_INVALID', 'License key is invalid');
  return {
    kind: 'license',
    type: 'licenses',
    id: holder.id as string,
    environmentId,
    permissions: effectivePermissions('license', ['*']),
    ...ancestry(holder),
  };
}

/** Where a license bearer stands in the licensing graph. */
const ancestry = (holder: Item) =>
  holder.type === 'licenses' ? { productId: holder.productId as string, policyId: holder.policyId as string } : {};

/**
 * The user behind `Authorization: Basic <email:password>` (only POST /tokens). Every failure
 * reads the same, and a password is hashed even for an unknown address, so neither the
 * answer nor its timing tells which part was wrong.
 */
export async function authenticateBasic(
  header: string | undefined,
  account: Account,
  environment: Environment | null,
): Promise<UserRecord> {
  const match = header && /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) throw unauthorized('TOKEN_MISSING', 'HTTP Basic credentials (email:password) are required', challenge('Basic'));
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const email = colon < 0 ? '' : decoded.slice(0, colon);
  const password = colon < 0 ? '' : decoded.slice(colon + 1);

  await limitLogins(account.id, email);
  const user = email ? await findUserByEmail(account.id, email) : undefined;
  const verified = await verifyPassword(password, user?.passwordHash);
  const kind = user && bearerKind('users', user as unknown as Item);
  if (!verified || !user || !kind || !admits(environment, user.environmentId, kind)) {
    throw unauthorized('CREDENTIALS_INVALID', 'Email and password must be valid', challenge('Basic'));
  }
  return user;
}

/** Login attempts per address and window: enough for people, too few to guess passwords. */
export const LOGINS_PER_WINDOW = 30;
const LOGIN_WINDOW_SECONDS = 15 * 60;

async function limitLogins(accountId: string, email: string): Promise<void> {
  const limit = await hit(`LOGIN#${accountId}#${digest(normaliseEmail(email))}`, LOGINS_PER_WINDOW, LOGIN_WINDOW_SECONDS);
  if (limit.allowed) return;
  throw tooManyRequests('Too many login attempts for this address; try again later', {
    'Retry-After': String(Math.max(1, limit.resetAt - Math.floor(Date.now() / 1000))),
    'X-RateLimit-Limit': String(limit.limit),
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Reset': String(limit.resetAt),
  });
}

async function findUserByEmail(accountId: string, email: string): Promise<UserRecord | undefined> {
  if (email.length > 255) return undefined;
  const marker = await getItem(uniqueKey(accountId, EMAIL_MARKER, normaliseEmail(email)));
  if (!marker) return undefined;
  const item = await getItem({ PK: marker.ref as string, SK: marker.SK });
  return item && toRecord<UserRecord>(item);
}

/** What a bearer record may act as right now; undefined when it may not act at all (banned). */
function bearerKind(type: RecordType, holder: Item): BearerKind | undefined {
  switch (type) {
    case 'users':
      if (holder.status !== 'ACTIVE') return undefined;
      return holder.role === 'admin' ? 'admin' : 'user';
    case 'environments':
      return 'environment';
    case 'products':
      return 'product';
    case 'licenses':
      return 'license';
    default:
      return undefined;
  }
}
