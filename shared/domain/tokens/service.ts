/**
 * Generating, finding and revoking tokens, for every kind of bearer.
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import type { Bearer } from '../../auth/bearer.ts';
import { isAdministrator } from '../../auth/bearer.ts';
import { digest, newTokenValue } from '../../auth/secrets.ts';
import { parseBody, resourceDocument } from '../../http/body.ts';
import { forbidden, unprocessable } from '../../http/errors.ts';
import { environmentMembership, tokenDigestKey, type RecordType } from '../../store/keys.ts';
import { listCollection, type Page, type PageRequest } from '../../store/paging.ts';
import { requireWritable, requireVisibleItem, toRecord, type Item } from '../../store/records.ts';
import { RecordNotFound } from '../../store/errors.ts';
import type { Scope } from '../../store/scope.ts';
import { Transaction } from '../../store/transaction.ts';
import type { RequestContext } from '../../http/pipeline.ts';
import { emitEvent } from '../../events/emit.ts';
import { now } from '../rules.ts';
import { tokenDocument } from './document.ts';
import { BEARER_SLOT, TOKEN_PREFIX, USER_TOKEN_LIFETIME_MS, type TokenKind, type TokenRecord } from './token.ts';

export interface NewToken {
  accountId: string;
  /** The bearer's own environment: a token lives where its bearer lives. */
  environmentId: string | null;
  bearer: { type: RecordType; id: string };
  kind: TokenKind;
  name?: string | null;
  expiry?: string | null;
  permissions?: string[];
}

/** Adds a token and its lookup item to a transaction; returns the record and the one-time value. */
export function addToken(tx: Transaction, input: NewToken): { token: TokenRecord; value: string } {
  const value = newTokenValue(TOKEN_PREFIX[input.kind]);
  const timestamp = now();
  const token: TokenRecord = {
    type: 'tokens',
    id: randomUUID(),
    accountId: input.accountId,
    environmentId: input.environmentId,
    created: timestamp,
    updated: timestamp,
    kind: input.kind,
    name: input.name ?? null,
    expiry: input.expiry ?? null,
    permissions: input.permissions ?? ['*'],
    bearerType: input.bearer.type,
    bearerId: input.bearer.id,
    digest: digest(value),
  };
  tx.create(token, { parents: [{ type: input.bearer.type, id: input.bearer.id }] });
  const lookup: Item = { ...tokenDigestKey(token.accountId, token.digest), ...token };
  if (token.environmentId) lookup.ENVPK = environmentMembership(token.accountId, token.environmentId);
  tx.put(lookup);
  return { token, value };
}

/** Deletes a token's lookup item along with the token, so its value stops working at once. */
export function removeLookup(tx: Transaction, item: Item): void {
  tx.remove(tokenDigestKey(item.accountId as string, item.digest as string));
}

const userTokenBody = z.union([
  z.undefined(),
  resourceDocument('tokens', { expiry: z.optional(z.string()), name: z.nullish(z.string()) }),
]);

/** POST /tokens: a new token for the user who logged in with HTTP Basic. */
export async function generateUserToken(ctx: RequestContext & { user: import('../users/user.ts').UserRecord }) {
  const body = 'absent' in ctx.body ? undefined : parseBody(ctx.body, userTokenBody);
  const latest = Date.now() + USER_TOKEN_LIFETIME_MS;
  let expiry = new Date(latest).toISOString();
  const requested = body?.data.attributes.expiry;
  if (requested !== undefined) {
    const at = Date.parse(requested);
    if (Number.isNaN(at) || at <= Date.now() || at > latest) {
      throw unprocessable('EXPIRY_INVALID', 'expiry must be a future ISO 8601 time at most 14 days away', '/data/attributes/expiry');
    }
    expiry = new Date(at).toISOString();
  }
  const user = ctx.user;
  const tx = new Transaction();
  const result = addToken(tx, {
    accountId: user.accountId,
    environmentId: user.environmentId,
    bearer: { type: 'users', id: user.id },
    kind: user.role === 'admin' ? 'admin-token' : 'user-token',
    name: body?.data.attributes.name ?? null,
    expiry,
  });
  await emitEvent(tx, result.token, 'token.generated', tokenDocument(result.token));
  await tx.commit();
  return result;
}

/** A token the bearer may see (administrators any within reach, everyone else their own), and for a write one it may change. */
async function visibleToken(scope: Scope, bearer: Bearer, id: string, write: boolean): Promise<Item> {
  const item = await requireVisibleItem(scope, 'tokens', id);
  if (!isAdministrator(bearer) && !(item.bearerType === bearer.type && item.bearerId === bearer.id)) {
    throw new RecordNotFound('tokens', id);
  }
  return write ? requireWritable(scope, item) : item;
}

export async function retrieveToken(scope: Scope, bearer: Bearer, id: string): Promise<TokenRecord> {
  const item = await visibleToken(scope, bearer, id, false);
  if (!bearer.permissions.has('token.read')) throw forbidden('This token may not read tokens');
  return toRecord<TokenRecord>(item);
}

export async function revokeToken(scope: Scope, bearer: Bearer, id: string): Promise<void> {
  const item = await visibleToken(scope, bearer, id, true);
  if (!bearer.permissions.has('token.revoke')) throw forbidden('This token may not revoke tokens');
  const tx = new Transaction();
  tx.delete(item, new RecordNotFound('tokens', id));
  removeLookup(tx, item);
  await emitEvent(tx, scope, 'token.deleted', tokenDocument(toRecord<TokenRecord>(item)));
  await tx.commit();
}

/** GET /tokens: administrators see every token within reach, other bearers their own. */
export async function listTokens(scope: Scope, bearer: Bearer, page: PageRequest): Promise<Page<TokenRecord>> {
  if (!bearer.permissions.has('token.read')) throw forbidden('This token may not read tokens');
  if (isAdministrator(bearer)) return listCollection<TokenRecord>(scope, { type: 'tokens' }, page);
  return listBearerTokens(scope, { type: bearer.type, id: bearer.id }, page);
}

export function listBearerTokens(scope: Scope, holder: { type: RecordType; id: string }, page: PageRequest) {
  return listCollection<TokenRecord>(scope, { type: 'tokens', parent: { ...holder, slot: BEARER_SLOT } }, page);
}
