/**
 * Generating, finding and revoking tokens, for every kind of bearer.
 */

import { randomUUID } from 'node:crypto';
import type { Actor, LoggingIn } from '../../auth/actor.ts';
import { authorize, authorizeAction, restriction } from '../../auth/authorize.ts';
import type { BearerType } from '../../auth/bearer.ts';
import { kindOf } from '../../auth/bearer.ts';
import { digest, newTokenValue } from '../../auth/secrets.ts';
import { conflict, NotAuthenticated, ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { deleteWithChildren } from '../../store/cascade.ts';
import { RecordNotFound } from '../../store/errors.ts';
import {
  bearerTokenEntryKey,
  bearerTokensHeadKey,
  environmentMembership,
  type RecordType,
  recordKey,
  tokenLookupKey,
} from '../../store/keys.ts';
import { listCollection, type Page, type PageRequest, partitionItems } from '../../store/paging.ts';
import { getItem, getRecordItems, itemOfType, type PlacedItem, type StoredItem, type StoredRecord, toRecord } from '../../store/records.ts';
import type { Scope } from '../../store/scope.ts';
import { Transaction } from '../../store/transaction.ts';
import { attributePointer, now } from '../rules.ts';
import { enabledFactor, otpRequired, refusal, spendStep, stepOf } from '../second-factors/codes.ts';
import { tokenDocument } from './document.ts';
import { BEARER_SLOT, TOKEN_PREFIX, type TokenKind, type TokenRecord, USER_TOKEN_LIFETIME_MS, userTokenKind } from './entity.ts';

export interface NewToken {
  /** The record the token stands for, as stored: a user, an environment, a product or a license. */
  holder: StoredRecord & { type: BearerType; role?: string; productId?: string; policyId?: string; ownerId?: string | null };
  /** Where the token lives: its holder's environment, or for an environment token the environment itself. */
  environmentId: string | null;
  kind: TokenKind;
  name?: string | null;
  expiry?: string | null;
  permissions?: string[];
}

/**
 * Adds a token to a transaction: its record, its lookup item and its entry in the holder's
 * register; returns the record and the one-time value. The lookup carries what the holder
 * acts as (its kind, a license's product and policy), so authentication needs no other read
 * (but a license's standing: the license, its policy and its owner, whose id the lookup carries);
 * whatever would change that (a ban, a new role, a delete) revokes the holder's tokens.
 */
export function addToken(tx: Transaction, input: NewToken): { token: TokenRecord; value: string } {
  const { holder } = input;
  const bearerKind = kindOf(holder);
  if (!bearerKind) throw new Error(`A ${holder.type} record cannot hold tokens`);
  const value = newTokenValue(TOKEN_PREFIX[input.kind]);
  const timestamp = now();
  const token: TokenRecord = {
    type: 'tokens',
    id: randomUUID(),
    accountId: holder.accountId,
    environmentId: input.environmentId,
    created: timestamp,
    updated: timestamp,
    kind: input.kind,
    name: input.name ?? null,
    expiry: input.expiry ?? null,
    permissions: input.permissions ?? ['*'],
    bearerType: holder.type,
    bearerId: holder.id,
    digest: digest(value),
  };
  tx.create(token, { parents: [{ type: holder.type, id: holder.id }] });
  const membership = token.environmentId ? { ENVPK: environmentMembership(token.accountId, token.environmentId) } : {};
  // Read with the license for its standing (authentication): its owner as it was then, which a later
  // owner change leaves behind (standing then reads the license's own owner, one read more).
  const ancestry =
    holder.type === 'licenses' ? { productId: holder.productId, policyId: holder.policyId, ownerId: holder.ownerId ?? null } : {};
  tx.put({ ...tokenLookupKey(token.digest), ...token, ...membership, bearerKind, ...ancestry });
  tx.put({ ...bearerTokenEntryKey(token.accountId, holder.type, holder.id, token.id), tokenId: token.id, ...membership });
  tx.patch(bearerTokensHeadKey(token.accountId, holder.type, holder.id), membership, { serial: 1 });
  return { token, value };
}

/**
 * Fails the transaction with `changed` unless the holder still stands as read: it exists and,
 * for a user, is active with the same role and password. A ban, a role change or a password
 * reset racing a new token thus either sees the token in the register or makes the token's
 * transaction fail.
 */
export function requireStanding(tx: Transaction, holder: StoredRecord & { role?: string; passwordHash?: string }, changed: Error): void {
  const key = recordKey(holder.accountId, holder.type, holder.id);
  if (holder.type === 'users') tx.requireState(key, standingOf(holder), changed);
  else tx.requireExists(key, changed);
}

/** What a user's tokens stand on: an active user, of the role and with the password read. */
const standingOf = (user: { role?: string; passwordHash?: string }) => ({
  status: 'ACTIVE',
  role: user.role,
  passwordHash: user.passwordHash,
});

/**
 * Deletes a token's lookup item and register entry along with the token, so its value stops working
 * at once. The lookup goes only while it holds the digest read: a token regenerated meanwhile has a
 * new one, and the revocation fails (409: a retry reads the token again) rather than leave the new
 * value working.
 */
export function removeLookup(tx: Transaction, item: StoredItem<TokenRecord>): void {
  tx.remove(tokenLookupKey(item.digest), {
    state: { digest: item.digest },
    changed: conflict('The token was regenerated meanwhile; retry the request'),
  });
  tx.remove(bearerTokenEntryKey(item.accountId, item.bearerType, item.bearerId, item.id));
}

/**
 * Every token of a holder, read strongly consistently from its register, with the register's
 * serial at the time of reading (undefined: no token was ever generated for it).
 */
export async function tokensOf(holder: PlacedItem): Promise<{ serial: number | undefined; tokens: StoredItem<TokenRecord>[] }> {
  const head = bearerTokensHeadKey(holder.accountId, holder.type, holder.id);
  const register = await partitionItems(undefined, head.PK);
  const serial = register.find((item) => item.SK === head.SK)?.serial as number | undefined;
  // Every entry but the head names its token.
  const ids = register.flatMap((item) => (item.SK !== head.SK && typeof item.tokenId === 'string' ? [item.tokenId] : []));
  const tokens = ids.length ? await getRecordItems(holder.accountId, 'tokens', ids) : [];
  return { serial, tokens };
}

/**
 * Fails the transaction unless no token was generated for `holder` since its register was read
 * (serial as read); with `holderGoes`, the register's head goes too.
 */
export function guardRegister(tx: Transaction, holder: PlacedItem, serial: number | undefined, holderGoes: boolean): void {
  const head = bearerTokensHeadKey(holder.accountId, holder.type, holder.id);
  const changed = conflict('A token was generated for this bearer meanwhile; retry the request');
  if (holderGoes) tx.remove(head, { state: { serial }, changed });
  else tx.requireState(head, { serial }, changed);
}

/**
 * Revokes every token of `holder` but `kept` (the request's own, which a password update keeps),
 * a few per transaction, then commits `last` (the change that needs them gone: a ban, a new role,
 * a delete) in a transaction of its own (its events may take 40 operations), which fails if a
 * token was generated meanwhile.
 */
export async function revokeTokensOf(
  holder: PlacedItem,
  last: (tx: Transaction) => Promise<void> | void,
  holderGoes: boolean,
  kept?: string,
): Promise<void> {
  const { serial, tokens } = await tokensOf(holder);
  const revoked = tokens.filter((token) => token.id !== kept);
  if (revoked.length > 0) await deleteWithChildren(revoked, () => {}, removeLookup);
  const tx = new Transaction();
  guardRegister(tx, holder, serial, holderGoes);
  await last(tx);
  await tx.commit();
}

/** What a log-in may ask of its token; both optional. */
export interface UserTokenRequest {
  name?: string | null;
  /** No later than USER_TOKEN_LIFETIME_MS from now, which is also the default. */
  expiry?: string;
}

/** A user token's expiry (docs/rules.md §14.1): the one asked, if it is at most 14 days away, else 14 days from now. */
export function userTokenExpiry(asked: string | null | undefined): string {
  const latest = Date.now() + USER_TOKEN_LIFETIME_MS;
  if (asked == null) return new Date(latest).toISOString();
  const at = Date.parse(asked);
  if (Number.isNaN(at) || at <= Date.now() || at > latest) {
    throw ruleBroken('EXPIRY_INVALID', 'expiry must be a future ISO 8601 time at most 14 days away', attributePointer('expiry'));
  }
  return new Date(at).toISOString();
}

/**
 * POST /tokens: a new token for the user who logged in with HTTP Basic; once the user's second
 * factor is enabled, only given a current code of it (`otp`), which the token's transaction spends
 * (shared/resources/second-factors/codes.ts). The code is asked for after the password, so that
 * only someone who knows the password learns whether the user has a second factor.
 */
export async function generateUserToken(login: LoggingIn, request: UserTokenRequest, otp?: string) {
  const expiry = userTokenExpiry(request.expiry);
  const { user } = login;
  const factor = enabledFactor(user);
  const step = factor && (await stepOf(user, factor, otp));
  const tx = new Transaction();
  const result = addToken(tx, {
    holder: user,
    environmentId: user.environmentId,
    kind: userTokenKind(user),
    name: request.name ?? null,
    expiry,
  });
  // Banned, deleted or given another role since the credentials were checked: as if they were wrong.
  const changed = new NotAuthenticated('CREDENTIALS_INVALID', 'Email and password must be valid');
  const key = recordKey(user.accountId, 'users', user.id);
  const item = { ...user, ...key };
  if (factor && step !== undefined) {
    spendStep(tx, item, factor, step, {}, { unchanged: standingOf(user), changed });
  } else {
    // Its second factor as read: one enabled meanwhile asks this log-in for a code after all.
    tx.requireState(key, { ...standingOf(user), secondFactor: user.secondFactor }, changed);
  }
  await emitEvent(tx, originOf(result.token, login.scope), 'token.generated', tokenDocument(result.token));
  try {
    await tx.commit();
  } catch (error) {
    if (step !== undefined) throw await refusal(item, step, error as Error);
    if (error === changed && enabledFactor(itemOfType('users', await getItem(key)) ?? {})) throw otpRequired();
    throw error;
  }
  return result;
}

export async function retrieveToken(actor: Actor, id: string): Promise<TokenRecord> {
  return toRecord('tokens', await authorize(actor, 'tokens', id, 'read'));
}

export async function revokeToken(actor: Actor, id: string): Promise<void> {
  const item = await authorize(actor, 'tokens', id, 'revoke');
  const tx = new Transaction();
  tx.delete(item, new RecordNotFound('tokens', id));
  removeLookup(tx, item);
  await emitEvent(tx, actor.scope, 'token.deleted', tokenDocument(toRecord('tokens', item)));
  await tx.commit();
}

/**
 * PUT /tokens/<id> (docs/rules.md §14.5), as Keygen regenerates: a new value, shown once; the old
 * one stops working at once (its lookup item goes in the transaction that writes the new one). A
 * token that expires lives 14 days from now, as long as a user token (Keygen extends it by two
 * weeks); one without an expiry keeps none. Of concurrent regenerations that read the same value,
 * one lands and the others are 409.
 */
export async function regenerateToken(actor: Actor, id: string): Promise<{ token: TokenRecord; value: string }> {
  const item = await authorize(actor, 'tokens', id, 'regenerate');
  const moved = conflict('The token was regenerated or revoked meanwhile; retry the request');
  // Gone since the token was read: regenerated or revoked meanwhile.
  const lookup = await getItem(tokenLookupKey(item.digest));
  if (!lookup) throw moved;
  const value = newTokenValue(TOKEN_PREFIX[item.kind]);
  const changes = {
    digest: digest(value),
    updated: now(),
    ...(item.expiry !== null && { expiry: new Date(Date.now() + USER_TOKEN_LIFETIME_MS).toISOString() }),
  };
  const tx = new Transaction();
  const token = toRecord(
    'tokens',
    tx.update(item, changes, {
      missing: new RecordNotFound('tokens', id),
      unchanged: { digest: item.digest },
      conflict: moved,
    }),
  );
  tx.remove(tokenLookupKey(item.digest), {
    state: { digest: item.digest },
    changed: conflict('The token was regenerated or revoked meanwhile; retry the request'),
  });
  const { PK: _pk, SK: _sk, ...carried } = lookup;
  tx.put({ ...carried, ...tokenLookupKey(changes.digest), ...changes }, { ifAbsent: new Error('A new token value collided with another') });
  await emitEvent(tx, originOf(token, actor.scope), 'token.regenerated', tokenDocument(token));
  await tx.commit();
  return { token, value };
}

/** GET /tokens: every token the bearer reaches (administrators all within reach, other bearers their own). */
export async function listTokens(actor: Actor, page: PageRequest): Promise<Page<TokenRecord>> {
  await authorizeAction(actor, 'tokens', 'list');
  const { bearerType, bearerId } = restriction(actor, 'tokens');
  if (bearerType === undefined || bearerId === undefined) return listCollection(actor.scope, { type: 'tokens' }, page);
  return listBearerTokens(actor.scope, { type: bearerType as RecordType, id: bearerId }, page);
}

export function listBearerTokens(scope: Scope, holder: { type: RecordType; id: string }, page: PageRequest) {
  return listCollection(scope, { type: 'tokens', parent: { ...holder, slot: BEARER_SLOT } }, page);
}
