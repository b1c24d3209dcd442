/**
 * Users: the writes that keep e-mail uniqueness, counts and tokens right (who may see and change
 * them: shared/auth/policies/users.ts).
 */
import { randomUUID } from 'node:crypto';
import { authorize, authorizeAction, authorizeGrant } from '../../auth/authorize.ts';
import type { Actor } from '../../auth/actor.ts';
import { heldBy } from '../../auth/permissions.ts';
import { hashPassword } from '../../auth/secrets.ts';
import { parseBody } from '../../http/body.ts';
import { conflict, ruleBroken } from '../../errors.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { listCollection, type PageRequest } from '../../store/paging.ts';
import { toRecord, type Item } from '../../store/records.ts';
import type { Scope } from '../../store/scope.ts';
import { Transaction, type UniqueClaim } from '../../store/transaction.ts';
import { requireUnclaimed } from '../../store/unique.ts';
import { emitEvent } from '../../events/emit.ts';
import { attributePointer, maxLength, metadataRule, now, oneOf } from '../rules.ts';
import { listBearerTokens, revokeTokensOf } from '../tokens/service.ts';
import { userDocument } from './document.ts';
import { createUserBody, updateUserBody } from './schema.ts';
import { EMAIL_MARKER, normaliseEmail, type UserRecord, type UserRole } from './user.ts';

const ROLES: readonly UserRole[] = ['user', 'admin'];
const PASSWORD_MIN = 8;
const PASSWORD_MAX = 1024;

export const emailClaim = (email: string): UniqueClaim => ({
  kind: EMAIL_MARKER,
  value: normaliseEmail(email),
  taken: ruleBroken('EMAIL_TAKEN', 'email has already been taken', attributePointer('email')),
});

function emailRules(email: string) {
  maxLength('email', email, 255);
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())) {
    throw ruleBroken('EMAIL_INVALID', 'email must be a valid e-mail address', attributePointer('email'));
  }
}

export function passwordRules(password: string, pointer = attributePointer('password')) {
  if ([...password].length < PASSWORD_MIN) {
    throw ruleBroken('PASSWORD_TOO_SHORT', `password is too short (minimum is ${PASSWORD_MIN} characters)`, pointer);
  }
  if ([...password].length > PASSWORD_MAX) {
    throw ruleBroken('PASSWORD_TOO_LONG', `password is too long (maximum is ${PASSWORD_MAX} characters)`, pointer);
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

/**
 * Giving a user a role, or the credentials to act in one (a password, an e-mail a reset can be
 * sent to), grants that role's permissions: only a bearer holding all of them may (403).
 */
function authorizeRole(ctx: Actor, role: string, home: string | null, what: string) {
  if (!(ROLES as readonly string[]).includes(role)) return; // an unknown role is the model's 422
  authorizeGrant(ctx, heldBy(role === 'admin' ? 'admin' : 'user', home), what);
}

export async function createUser(ctx: Actor): Promise<UserRecord> {
  await authorizeAction(ctx, 'users', 'create');
  const { attributes } = parseBody(ctx.body, createUserBody).data;
  authorizeRole(ctx, attributes.role ?? 'user', ctx.scope.environmentId, `A user with the role ${attributes.role ?? 'user'}`);
  const tx = new Transaction();
  const user = await addUser(tx, ctx.scope, attributes);
  await emitEvent(tx, ctx.scope, 'user.created', userDocument(user));
  await tx.commit();
  return user;
}

export async function retrieveUser(ctx: Actor, id: string): Promise<UserRecord> {
  return toRecord<UserRecord>(await authorize(ctx, 'users', id, 'read'));
}

/** GET /users/<id>/tokens: the tokens of a user the bearer may see. */
export async function listUserTokens(ctx: Actor, id: string, page: PageRequest) {
  const user = await retrieveUser(ctx, id);
  await authorizeAction(ctx, 'tokens', 'list');
  return listBearerTokens(ctx.scope, { type: 'users', id: user.id }, page);
}

export async function listUsers(ctx: Actor, page: PageRequest) {
  await authorizeAction(ctx, 'users', 'list');
  return listCollection<UserRecord>(ctx.scope, { type: 'users' }, page);
}

export async function updateUser(ctx: Actor, id: string): Promise<UserRecord> {
  const sent = (ctx.body as { json?: { data?: { attributes?: unknown } } }).json?.data?.attributes;
  const item = await authorize(ctx, 'users', id, 'update', { attributes: sent && typeof sent === 'object' ? Object.keys(sent) : [] });
  const { attributes = {} } = parseBody(ctx.body, updateUserBody, item.id as string).data;
  const user = toRecord<UserRecord>(item);
  if (attributes.role !== undefined) authorizeRole(ctx, attributes.role, user.environmentId, `The role ${attributes.role}`);
  if (attributes.password !== undefined || attributes.email !== undefined) {
    authorizeRole(ctx, user.role, user.environmentId, `Setting the credentials of a user with the role ${user.role}`);
  }
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
  if (changes.email !== undefined && normaliseEmail(attributes.email!) !== normaliseEmail(user.email)) {
    // A reset token went to the old address: whoever keeps that mailbox must not take the user back.
    changes.passwordResetDigest = null;
    changes.passwordResetExpiry = null;
  }
  changes.updated = now();
  // A token acts as the role its user had when it was generated, and was won with the password
  // they had: a new role or a new password takes new tokens — revoked before the change, so a
  // change refused for its e-mail must be refused before that.
  const revoking = changes.role !== undefined || changes.passwordHash !== undefined;
  if (revoking) await requireUnclaimed(user.accountId, claim);
  return changeUser(ctx, item, changes, {
    missing: new RecordNotFound('users', id),
    conflict: conflict('The user changed while this request was made; retry it'),
    claim,
    release,
  }, revoking);
}

/** Writes `changes` to the user and announces user.updated; with `revoking`, once the user's tokens are revoked. */
async function changeUser(
  ctx: Actor,
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
export async function setUserStatus(ctx: Actor, id: string, status: 'ACTIVE' | 'BANNED'): Promise<UserRecord> {
  const item = await authorize(ctx, 'users', id, status === 'BANNED' ? 'ban' : 'unban');
  return changeUser(ctx, item, { status, updated: now() }, { missing: new RecordNotFound('users', id) }, status === 'BANNED');
}

/** Deletes a user with all of their tokens, and frees their e-mail address. */
export async function deleteUser(ctx: Actor, id: string): Promise<void> {
  const item = await authorize(ctx, 'users', id, 'delete');
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
