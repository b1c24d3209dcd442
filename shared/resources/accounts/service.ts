/**
 * Creating accounts (operator CLI and the local demo), reading and changing them (admins).
 */
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../auth/actor.ts';
import { authorizeAction } from '../../auth/authorize.ts';
import { newSigningKey, storedSigningKeyOf } from '../../auth/signing-key.ts';
import { ruleBroken } from '../../errors.ts';
import { emitEvent } from '../../events/emit.ts';
import { accountKey } from '../../store/keys.ts';
import { isUuid } from '../../store/records.ts';
import { globalScope } from '../../store/scope.ts';
import { Transaction } from '../../store/transaction.ts';
import { attributePointer, maxLength, now } from '../rules.ts';
import { addToken } from '../tokens/service.ts';
import { addUser } from '../users/service.ts';
import { accountDocument } from './document.ts';
import { type Account, putNewAccount, SLUG } from './entity.ts';

export interface NewAccount {
  slug: string;
  name: string;
  email: string;
  password: string;
}

/**
 * Creates an account with its first admin user and one admin token, all in one transaction:
 * a bad or duplicate input writes nothing.
 */
export async function createAccount(input: NewAccount) {
  const slug = input.slug.trim().toLowerCase();
  if (!SLUG.test(slug) || isUuid(slug)) {
    throw ruleBroken(
      'SLUG_INVALID',
      'slug must be 1-63 lower-case letters, digits or dashes, starting with a letter or digit',
      attributePointer('slug'),
    );
  }
  if (input.name.trim() === '') throw ruleBroken('NAME_INVALID', 'name cannot be blank', attributePointer('name'));
  maxLength('name', input.name, 255);
  const timestamp = now();
  const id = randomUUID();
  const account: Account = {
    id,
    slug,
    name: input.name.trim(),
    protected: false,
    created: timestamp,
    updated: timestamp,
    signingKey: await newSigningKey(id),
  };
  const tx = new Transaction();
  putNewAccount(tx, account, ruleBroken('SLUG_TAKEN', `the slug '${slug}' has already been taken`, attributePointer('slug')));
  const user = await addUser(tx, globalScope(account.id), { email: input.email, password: input.password, role: 'admin' });
  const { value } = addToken(tx, {
    holder: user,
    environmentId: null,
    kind: 'admin-token',
  });
  await tx.commit();
  return { account, user, token: value };
}

/** What an administrator may change of the account; only what is given changes. */
export interface AccountChanges {
  name?: string;
  protected?: boolean;
}

/** The account, with its signing key (made now if it has none yet: its public key is shown). */
export async function retrieveAccount(actor: Actor): Promise<Account> {
  await authorizeAction(actor, 'accounts', 'read');
  return { ...actor.account, signingKey: await storedSigningKeyOf(actor.account) };
}

export async function updateAccount(actor: Actor, attributes: AccountChanges): Promise<Account> {
  await authorizeAction(actor, 'accounts', 'update');
  maxLength('name', attributes.name, 255);
  const changes: Partial<Account> = { updated: now() };
  if (attributes.name !== undefined) changes.name = attributes.name.trim();
  if (attributes.protected !== undefined) changes.protected = attributes.protected;
  // Only the attributes sent are set, so concurrent changes of different attributes both land.
  const tx = new Transaction();
  tx.update({ ...accountKey(actor.account.id), accountId: actor.account.id, environmentId: null }, changes, {
    missing: new Error('The account was deleted during the update'),
  });
  const next: Account = { ...actor.account, ...changes, signingKey: await storedSigningKeyOf(actor.account) };
  await emitEvent(tx, globalScope(actor.account.id), 'account.updated', accountDocument(next));
  await tx.commit();
  return next;
}
