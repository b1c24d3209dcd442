/**
 * Users: who may see and change them, and the writes that keep e-mail uniqueness, counts and
 * tokens right.
 */
import { randomUUID } from 'node:crypto';
import { can, isAdministrator, isSelf, type Bearer } from '../../auth/bearer.ts';
import { hashPassword } from '../../auth/secrets.ts';
import { parseBody } from '../../http/body.ts';
import { conflict, forbidden, unprocessable } from '../../http/errors.ts';
import type { RequestContext } from '../../http/pipeline.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { listCollection, type PageRequest } from '../../store/paging.ts';
import { requireVisibleItem, requireWritable, toRecord, type Item } from '../../store/records.ts';
import type { Scope } from '../../store/scope.ts';
import { Transaction, type UniqueClaim } from '../../store/transaction.ts';
import { emitEvent } from '../../events/emit.ts';
import { attributePointer, maxLength, metadataRule, now, oneOf } from '../rules.ts';
import { listBearerTokens, revokeTokensOf } from '../tokens/service.ts';
import { userDocument } from './document.ts';
import { createUserBody, SELF_EDITABLE, updateUserBody } from './schema.ts';
import { EMAIL_MARKER, normaliseEmail, type UserRecord, type UserRole } from './user.ts';

const ROLES: readonly UserRole[] = ['user', 'admin'];
const PASSWORD_MIN = 8;
const PASSWORD_MAX = 1024;

type BearerContext = RequestContext & { bearer: Bearer };

export const emailClaim = (email: string): UniqueClaim => ({
  kind: EMAIL_MARKER,
  value: normaliseEmail(email),
  taken: unprocessable('EMAIL_TAKEN', 'email has already been taken', attributePointer('email')),
});

function emailRules(email: string) {
  maxLength('email', email, 255);
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())) {
    throw unprocessable('EMAIL_INVALID', 'email must be a valid e-mail address', attributePointer('email'));
  }
}

export function passwordRules(password: string, pointer = attributePointer('password')) {
  if ([...password].length < PASSWORD_MIN) {
    throw unprocessable('PASSWORD_TOO_SHORT', `password is too short (minimum is ${PASSWORD_MIN} characters)`, pointer);
  }
  if ([...password].length > PASSWORD_MAX) {
    throw unprocessable('PASSWORD_TOO_LONG', `password is too long (maximum is ${PASSWORD_MAX} characters)`, pointer);
  }
}

export interface NewUser {
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  password?: string;
  role?: string;
  metadata?: Record<string, unknown>;
}

/** Checks the model rules of a new user and adds it to a transaction. */
export async function addUser(tx: Transaction, scope: Scope, input: NewUser): Promise<UserRecord> {
  emailRules(input.email);
  maxLength('firstName', input.firstName, 255);
  maxLength('lastName', input.lastName, 255);
  const role = oneOf('role', input.role, ROLES) ?? 'user';
  metadataRule(input.metadata);
  if (input.password !== undefined) passwordRules(input.password);
  const timestamp = now();
  const user: UserRecord = {
    type: 'users',
    id: randomUUID(),
    accountId: scope.accountId,
    environmentId: scope.environmentId,
    created: timestamp,
    updated: timestamp,
    email: input.email.trim(),
    firstName: input.firstName ?? null,
    lastName: input.lastName ?? null,
    role,
    status: 'ACTIVE',
    metadata: input.metadata ?? {},
    ...(input.password !== undefined ? { passwordHash: await hashPassword(input.password) } : {}),
  };
  tx.create(user, { unique: [emailClaim(user.email)] });
  return user;
}

function requireAdministrator(bearer: Bearer, permission: Parameters<typeof can>[1], action: string) {
  if (!isAdministrator(bearer) || !can(bearer, permission)) throw forbidden(`Only administrators may ${action}`);
}

export async function createUser(ctx: BearerContext): Promise<UserRecord> {
  requireAdministrator(ctx.bearer, 'user.create', 'create users');
  const { attributes } = parseBody(ctx.body, createUserBody).data;
  const tx = new Transaction();
  const user = await addUser(tx, ctx.scope, attributes);
  await emitEvent(tx, ctx.scope, 'user.created', userDocument(user));
  await tx.commit();
  return user;
}

/**
 * A user the bearer may see (administrators any within reach, users themselves), and for a
 * write one it may change: visibility is settled first, so a refusal never reveals a record.
 */
async function visibleUser(ctx: BearerContext, id: string, write: boolean): Promise<Item> {
  const item = await requireVisibleItem(ctx.scope, 'users', id);
  if (!isAdministrator(ctx.bearer) && !isSelf(ctx.bearer, 'users', item.id as string)) throw new RecordNotFound('users', id);
  if (write) requireWritable(ctx.scope, item);
  return item;
}

export async function retrieveUser(ctx: BearerContext, id: string): Promise<UserRecord> {
  const item = await visibleUser(ctx, id, false);
  if (!can(ctx.bearer, 'user.read')) throw forbidden('This token may not read users');
  return toRecord<UserRecord>(item);
}

/** GET /users/<id>/tokens: the tokens of a user the bearer may see. */
export async function listUserTokens(ctx: BearerContext, id: string, page: PageRequest) {
  const user = await retrieveUser(ctx, id);
  if (!can(ctx.bearer, 'token.read')) throw forbidden('This token may not read tokens');
  return listBearerTokens(ctx.scope, { type: 'users', id: user.id }, page);
}

export async function listUsers(ctx: BearerContext, page: PageRequest) {
  requireAdministrator(ctx.bearer, 'user.read', 'list users');
  return listCollection<UserRecord>(ctx.scope, { type: 'users' }, page);
}

export async function updateUser(ctx: BearerContext, id: string): Promise<UserRecord> {
  const item = await visibleUser(ctx, id, true);
  if (!can(ctx.bearer, 'user.update')) throw forbidden('This token may not update users');
  if (!isAdministrator(ctx.bearer)) {
    const attributes = (ctx.body as { json?: { data?: { attributes?: object } } }).json?.data?.attributes ?? {};
    const others = Object.keys(attributes).filter((name) => !(SELF_EDITABLE as readonly string[]).includes(name));
    if (others.length > 0) throw forbidden(`A user may change only their own ${SELF_EDITABLE.join(' and ')}`);
  }
  const { attributes = {} } = parseBody(ctx.body, updateUserBody, item.id as string).data;
  const user = toRecord<UserRecord>(item);
  const changes: Record<string, unknown> = {};
  const claim: UniqueClaim[] = [];
  const release: { kind: string; value: string }[] = [];

  if (attributes.email !== undefined) {
    emailRules(attributes.email);
    changes.email = attributes.email.trim();
    if (normaliseEmail(attributes.email) !== normaliseEmail(user.email)) {
      claim.push(emailClaim(attributes.email));
      release.push({ kind: EMAIL_MARKER, value: normaliseEmail(user.email) });
    }
  }
  for (const name of ['firstName', 'lastName'] as const) {
    if (attributes[name] === undefined) continue;
    maxLength(name, attributes[name], 255);
    changes[name] = attributes[name];
  }
  if (attributes.role !== undefined) {
    const role = oneOf('role', attributes.role, ROLES);
    // Written only when it changes: a stale "same role" must not undo a concurrent role change.
    if (role !== user.role) changes.role = role;
  }
  if (attributes.metadata !== undefined) {
    metadataRule(attributes.metadata);
    changes.metadata = attributes.metadata;
  }
  if (attributes.password !== undefined) {
    passwordRules(attributes.password);
    changes.passwordHash = await hashPassword(attributes.password);
  }
  changes.updated = now();
  // A token acts as the role its user had when it was generated: a new role takes new tokens.
  return changeUser(ctx, item, changes, {
    missing: new RecordNotFound('users', id),
    conflict: conflict('The user changed while this request was made; retry it'),
    claim,
    release,
  }, changes.role !== undefined);
}

/** Writes `changes` to the user and announces user.updated; with `revoking`, once the user's tokens are revoked. */
async function changeUser(
  ctx: BearerContext,
  item: Item,
  changes: Record<string, unknown>,
  options: Parameters<Transaction['update']>[2],
  revoking: boolean,
): Promise<UserRecord> {
  let next = toRecord<UserRecord>(item);
  const apply = async (tx: Transaction) => {
    next = toRecord<UserRecord>(tx.update(item, changes, options));
    await emitEvent(tx, ctx.scope, 'user.updated', userDocument(next));
  };
  if (revoking) {
    await revokeTokensOf(item, apply, false);
  } else {
    const tx = new Transaction();
    await apply(tx);
    await tx.commit();
  }
  return next;
}

/**
 * Bans or lifts a ban. A ban revokes the user's tokens at once (and refuses their logins);
 * lifting it lets them log in again for new ones.
 */
export async function setUserStatus(ctx: BearerContext, id: string, status: 'ACTIVE' | 'BANNED'): Promise<UserRecord> {
  const item = await visibleUser(ctx, id, true);
  requireAdministrator(ctx.bearer, 'user.ban', 'ban users');
  if (status === 'BANNED' && isSelf(ctx.bearer, 'users', item.id as string)) throw forbidden('You cannot ban yourself');
  return changeUser(ctx, item, { status, updated: now() }, { missing: new RecordNotFound('users', id) }, status === 'BANNED');
}

/** Deletes a user with all of their tokens, and frees their e-mail address. */
export async function deleteUser(ctx: BearerContext, id: string): Promise<void> {
  const item = await visibleUser(ctx, id, true);
  requireAdministrator(ctx.bearer, 'user.delete', 'delete users');
  if (isSelf(ctx.bearer, 'users', item.id as string)) throw forbidden('You cannot delete yourself');
  const document = userDocument(toRecord<UserRecord>(item));
  await revokeTokensOf(
    item,
    async (tx) => {
      tx.delete(item, new RecordNotFound('users', id));
      await emitEvent(tx, ctx.scope, 'user.deleted', document);
    },
    true,
  );
}
