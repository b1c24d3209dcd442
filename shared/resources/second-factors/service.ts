/**
 * Second factors (docs/rules.md §13.2), as Keygen keeps them: a user adds one with their password,
 * scans its otpauth:// URI (shown once), and enables it with a code of it; from then on a log-in
 * needs a code too, and so does removing it. Who may: the users policy (`second-factors.*`):
 * administrators, and the user themself.
 */
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../auth/actor.ts';
import { limitLogins } from '../../auth/authenticate.ts';
import { authorize } from '../../auth/authorize.ts';
import { verifyPassword } from '../../auth/secrets.ts';
import { newTotpSecret, otpauthUri } from '../../auth/totp.ts';
import { conflict, NotAuthenticated, ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { getItem, type StoredItem, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { now } from '../rules.ts';
import type { UserRecord } from '../users/entity.ts';
import { enabledFactor, refusal, sealedSecret, spendStep, stepOf } from './codes.ts';
import { secondFactorDocument } from './document.ts';
import type { SecondFactor } from './entity.ts';

/** The user's factor `id`, else 404. */
function factorNamed(user: UserRecord, id: string): SecondFactor {
  if (user.secondFactor?.id !== id) throw new RecordNotFound('second-factors', id);
  return user.secondFactor;
}

const changedMeanwhile = () => conflict("The user's second factor changed while this request was made; retry it");

/** GET /users/<id>/second-factors: the user's second factor, if any (at most one). */
export async function listSecondFactors(actor: Actor, userId: string): Promise<{ user: UserRecord; factors: SecondFactor[] }> {
  const user = toRecord('users', await authorize(actor, 'users', userId, 'second-factors.read'));
  return { user, factors: user.secondFactor ? [user.secondFactor] : [] };
}

export async function retrieveSecondFactor(actor: Actor, userId: string, id: string) {
  const user = toRecord('users', await authorize(actor, 'users', userId, 'second-factors.read'));
  return { user, factor: factorNamed(user, id) };
}

/**
 * POST /users/<id>/second-factors: a new factor, disabled until a code of it is verified, with its
 * provisioning URI (the only time its secret is shown). Needs the user's password (401
 * PASSWORD_INVALID at /meta/password, a guess counted as a log-in is); a user has at most one
 * (422 SECOND_FACTOR_TAKEN: delete it first).
 */
export async function createSecondFactor(actor: Actor, userId: string, password: string | undefined) {
  const item = await authorize(actor, 'users', userId, 'second-factors.create');
  const user = toRecord('users', item);
  await limitLogins(user.accountId, user.email);
  if (password === undefined || !(await verifyPassword(password, user.passwordHash))) {
    throw new NotAuthenticated('PASSWORD_INVALID', 'password must be valid', undefined, { pointer: '/meta/password' });
  }
  const taken = () => ruleBroken('SECOND_FACTOR_TAKEN', 'user already has a second factor', '/data/relationships/user');
  if (user.secondFactor) throw taken();
  const timestamp = now();
  const id = randomUUID();
  const secret = newTotpSecret();
  const factor: SecondFactor = { id, secret: await sealedSecret(user, id, secret), enabled: false, created: timestamp, updated: timestamp };
  const tx = new Transaction();
  // Only while the user has none: of two concurrent creates one lands, the other finds it taken.
  const updated = toRecord(
    'users',
    tx.update(item, { secondFactor: factor }, { missing: new RecordNotFound('users', userId), unset: ['secondFactor'], conflict: taken() }),
  );
  await emitEvent(tx, originOf(updated, actor.scope), 'second-factor.created', secondFactorDocument(updated, factor));
  await tx.commit();
  return { user: updated, factor, uri: otpauthUri(secret, actor.account.name, user.email) };
}

/**
 * PATCH /users/<id>/second-factors/<id>: enables or disables the factor, given a code of it (401
 * OTP_INVALID); the code is spent.
 */
export async function updateSecondFactor(actor: Actor, userId: string, id: string, enabled: boolean, otp: string) {
  const item = await authorize(actor, 'users', userId, 'second-factors.update');
  const user = toRecord('users', item);
  const factor = factorNamed(user, id);
  await limitLogins(user.accountId, user.email);
  const step = await stepOf(user, factor, otp);
  const changed = { ...factor, enabled, updated: now() };
  const tx = new Transaction();
  const updated = toRecord('users', spendStep(tx, item, factor, step, { secondFactor: changed }, { changed: changedMeanwhile() }));
  await emitEvent(
    tx,
    originOf(updated, actor.scope),
    enabled ? 'second-factor.enabled' : 'second-factor.disabled',
    secondFactorDocument(updated, changed),
  );
  await commitSpending(tx, item, step);
  return { user: updated, factor: changed };
}

/**
 * DELETE /users/<id>/second-factors/<id>: an enabled factor goes only given a current code of it
 * (401 OTP_REQUIRED, OTP_INVALID); a disabled one needs none.
 */
export async function deleteSecondFactor(actor: Actor, userId: string, id: string, otp: string | undefined): Promise<void> {
  const item = await authorize(actor, 'users', userId, 'second-factors.delete');
  const user = toRecord('users', item);
  const factor = factorNamed(user, id);
  let step: number | undefined;
  if (enabledFactor(user)) {
    await limitLogins(user.accountId, user.email);
    step = await stepOf(user, factor, otp);
  }
  const tx = new Transaction();
  // The step spent is forgotten with the factor: the update removes otpStep on condition that it was below.
  tx.update(
    item,
    { secondFactor: null, otpStep: null },
    {
      missing: changedMeanwhile(),
      unchanged: { secondFactor: factor },
      ...(step !== undefined && { below: { otpStep: step } }),
      conflict: changedMeanwhile(),
    },
  );
  await emitEvent(tx, originOf(user, actor.scope), 'second-factor.deleted', secondFactorDocument(user, factor));
  await (step === undefined ? commitChange(tx, item, id) : commitSpending(tx, item, step));
}

/** Commits a change that spends `step`: a failure is a code spent meanwhile (401) or a change of the factor (409). */
async function commitSpending(tx: Transaction, user: StoredItem<UserRecord>, step: number): Promise<void> {
  try {
    await tx.commit();
  } catch (error) {
    throw await refusal(user, step, error as Error);
  }
}

/** Commits a change of a disabled factor: one gone meanwhile is 404, one changed 409. */
async function commitChange(tx: Transaction, user: StoredItem<UserRecord>, id: string): Promise<void> {
  try {
    await tx.commit();
  } catch (error) {
    const current = await getItem({ PK: user.PK, SK: user.SK });
    const factor = current?.secondFactor as SecondFactor | undefined;
    throw factor?.id === id ? error : new RecordNotFound('second-factors', id);
  }
}
