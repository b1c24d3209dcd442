/**
 * Tokens: credentials that stand for a bearer. The value is shown once, when the token is
 * generated; the service keeps only its SHA-256 digest, in the token record and in a lookup
 * item keyed by the digest that authentication reads.
 */
import type { BearerType } from '../../auth/bearer.ts';
import type { BearerKind } from '../../auth/permissions.ts';
import type { TokenPrefix } from '../../auth/secrets.ts';
import type { AccessPattern } from '../../store/data-model.ts';
import { attributesOf, type Item, type StoredRecord } from '../../store/records.ts';

export type TokenKind = 'admin-token' | 'user-token' | 'environment-token' | 'product-token' | 'activation-token';

export interface TokenRecord extends StoredRecord {
  type: 'tokens';
  kind: TokenKind;
  name: string | null;
  expiry: string | null;
  permissions: string[];
  bearerType: BearerType;
  bearerId: string;
  digest: string;
}

/**
 * The item authentication finds a token by (tokenLookupKey): the token, what its bearer acts as,
 * and for a license bearer the license's ancestry and owner.
 */
export interface TokenLookup extends TokenRecord {
  bearerKind: BearerKind;
  productId?: string;
  policyId?: string;
  ownerId?: string | null;
}

export const tokenOfLookup = (item: Item): TokenLookup => attributesOf<TokenLookup>(item);

export const TOKEN_PREFIX: Record<TokenKind, TokenPrefix> = {
  'admin-token': 'admin',
  'user-token': 'user',
  'environment-token': 'env',
  'product-token': 'prod',
  'activation-token': 'activ',
};

/** The kind of a user's token: an admin's, or a user's. */
export const userTokenKind = (user: { role?: string }): TokenKind => (user.role === 'admin' ? 'admin-token' : 'user-token');

/** The kind of bearer each kind of token stands for. */
export const BEARER_KIND_OF: Record<TokenKind, BearerKind> = {
  'admin-token': 'admin',
  'user-token': 'user',
  'environment-token': 'environment',
  'product-token': 'product',
  'activation-token': 'license',
};

/** User tokens live at most this long (docs/rules.md §14.1). */
export const USER_TOKEN_LIFETIME_MS = 14 * 24 * 3600 * 1000;

/** The token's place in the bearer's collection: GSI2 holds a bearer's tokens. */
export const BEARER_SLOT = 0;

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 6,
    name: 'Token by value',
    operation: 'BatchGetItem (read ahead)',
    index: 'table',
    key: '`PK = TOKEN_DIGEST#<sha256>`',
    usedBy: '`authenticateToken`',
    tests: ['store/data-model'],
  },
  {
    n: 8,
    name: "List a bearer's tokens",
    operation: 'Query (backwards)',
    index: 'GSI2',
    key: '`GSI2PK = A#<acct>#E#<env>#<BEARER TYPE>#<id>#TOKEN`',
    usedBy: '`GET /tokens` (non-admin), `/users/<id>/tokens`, `/environments/<id>/tokens`',
    tests: ['store/data-model'],
  },
  {
    n: 35,
    name: "A bearer's tokens, strongly consistent",
    operation: 'Query (consistent), then BatchGetItem of the token records',
    index: 'table',
    key: '`PK = A#<acct>#<BEARER TYPE>#<id>#TOKENS`',
    usedBy: 'ban, role change, any password change (reset or PATCH), user/product/license delete (`revokeTokensOf`)',
    tests: ['store/data-model', 'http/users'],
  },
];
