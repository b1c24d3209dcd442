/**
 * Tokens: credentials that stand for a bearer. The value is shown once, when the token is
 * generated; the service keeps only its SHA-256 digest, in the token record and in a lookup
 * item keyed by the digest that authentication reads.
 */
import type { BearerType } from '../../auth/bearer.ts';
import type { BearerKind } from '../../auth/permissions.ts';
import type { TokenPrefix } from '../../auth/secrets.ts';
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

/** User tokens live at most this long (docs/rules.md §14.1). */
export const USER_TOKEN_LIFETIME_MS = 14 * 24 * 3600 * 1000;

/** The token's place in the bearer's collection: GSI2 holds a bearer's tokens. */
export const BEARER_SLOT = 0;
