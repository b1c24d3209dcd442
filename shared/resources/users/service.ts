/**
 * Users: the writes that keep e-mail uniqueness, counts and tokens right (who may see and change
 * them: shared/resources/users/policy.ts).
 */
import type { Actor } from '../../auth/actor.ts';
import { authorize, authorizeAction } from '../../auth/authorize.ts';
import { hashPassword } from '../../auth/secrets.ts';
import { conflict, ruleBroken } from '../../errors.ts';
import { emitEvent } from '../../events/emit.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { listCollection, type PageRequest } from '../../store/paging.ts';
import { type StoredItem, toRecord } from '../../store/records.ts';
import type { Scope } from '../../store/scope.ts';
import { Transaction, type UniqueClaim } from '../../store/transaction.ts';
import { requireUnclaimed } from '../../store/unique.ts';
import { attributePointer, maxLength, metadataRule, newRecord, now, oneOf } from '../rules.ts';
import { userTokenKind } from '../tokens/entity.ts';
import { generateTokenFor, type TokenRequest } from '../tokens/generate.ts';
import { listBearerTokens, revokeTokensOf, userTokenExpiry } from '../tokens/service.ts';
import { userDocument } from './document.ts';
import { EMAIL_MARKER, normaliseEmail, ROLES, type UserRecord } from './entity.ts';
import { deleteOwner } from './owners.ts';

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
  const user: UserRecord = {
    ...newRecord('users', scope),
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

export async function createUser(actor: Actor, input: NewUser): Promise<UserRecord> {
  await authorizeAction(actor, 'users', 'create', { changes: { role: input.role } });
  const tx = new Transaction();
  const user = await addUser(tx, actor.scope, input);
  await emitEvent(tx, actor.scope, 'user.created', userDocument(user));
  await tx.commit();
  return user;
}

export async function retrieveUser(actor: Actor, id: string): Promise<UserRecord> {
  return toRecord('users', await authorize(actor, 'users', id, 'read'));
}

/** GET /users/<id>/tokens: the tokens of a user the bearer may see. */
export async function listUserTokens(actor: Actor, id: string, page: PageRequest) {
  const user = await retrieveUser(actor, id);
  await authorizeAction(actor, 'tokens', 'list');
  return listBearerTokens(actor.scope, { type: 'users', id: user.id }, page);
}

export async function listUsers(actor: Actor, page: PageRequest) {
  await authorizeAction(actor, 'users', 'list');
  return listCollection(actor.scope, { type: 'users' }, page);
}

/** The attributes an update may send; only those given change. */
export interface UserChanges {
  email?: string;
  firstName?: string | null;
  lastName?: string | null;
  password?: string;
  role?: string;
  metadata?: Record<string, unknown>;
}

export async function updateUser(actor: Actor, id: string, attributes: UserChanges): Promise<UserRecord> {
  // What is sent decides whether a user may make the change to themselves, and what it hands over.
  const item = await authorize(actor, 'users', id, 'update', { changes: { ...attributes } });
  const user = toRecord('users', item);
  const changes: Record<string, unknown> = {};
  const claim: UniqueClaim[] = [];
  const release: { kind: string; value: string }[] = [];
  const newEmail = attributes.email !== undefined && normaliseEmail(attributes.email) !== normaliseEmail(user.email);

  if (attributes.email !== undefined) {
    emailRules(attributes.email);
    changes.email = attributes.email.trim();
    if (newEmail) {
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
  if (newEmail) {
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
  return changeUser(
    actor,
    item,
    changes,
    {
      missing: new RecordNotFound('users', id),
      conflict: conflict('The user changed while this request was made; retry it'),
      claim,
      release,
    },
    revoking,
  );
}

/** Writes `changes` to the user and announces user.updated; with `revoking`, once the user's tokens are revoked. */
async function changeUser(
  actor: Actor,
  item: StoredItem<UserRecord>,
  changes: Record<string, unknown>,
  options: Parameters<Transaction['update']>[2],
  revoking: boolean,
): Promise<UserRecord> {
  let next = toRecord('users', item);
  const apply = async (tx: Transaction) => {
    next = toRecord('users', tx.update(item, changes, options));
    await emitEvent(tx, actor.scope, 'user.updated', userDocument(next));
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

/** Bans a user: their tokens are revoked at once, and their logins refused. */
export const banUser = (actor: Actor, id: string) => setUserStatus(actor, id, 'BANNED');

/** Lifts a ban: the user may log in again for new tokens. */
export const unbanUser = (actor: Actor, id: string) => setUserStatus(actor, id, 'ACTIVE');

async function setUserStatus(actor: Actor, id: string, status: 'ACTIVE' | 'BANNED'): Promise<UserRecord> {
  const item = await authorize(actor, 'users', id, status === 'BANNED' ? 'ban' : 'unban');
  return changeUser(actor, item, { status, updated: now() }, { missing: new RecordNotFound('users', id) }, status === 'BANNED');
}

/**
 * Deletes a user with all of their tokens, and frees their e-mail address; what they owned stays,
 * without an owner (owners.ts).
 */
export async function deleteUser(actor: Actor, id: string): Promise<void> {
  const item = await authorize(actor, 'users', id, 'delete');
  const document = userDocument(toRecord('users', item));
  await deleteOwner(item, async (tx) => {
    tx.delete(item, new RecordNotFound('users', id));
    await emitEvent(tx, actor.scope, 'user.deleted', document);
  });
}

/**
 * POST /users/<id>/tokens (docs/rules.md §14.3): a token of the user's, generated by an
 * administrator, as Keygen's; it lives as a log-in's does (§14.1). A banned user holds none (403).
 */
export async function generateTokenForUser(actor: Actor, id: string, request: TokenRequest) {
  const item = await authorize(actor, 'users', id, 'tokens.generate', { changes: { permissions: request.permissions } });
  const expiry = userTokenExpiry(request.expiry);
  return generateTokenFor(actor, item, userTokenKind(item), { ...request, expiry });
}
