/**
 * Accounts: the tenant every other record belongs to. An account is found by UUID or by
 * slug; the slug is held by a marker item so two accounts can never share one.
 */
import type { StoredSigningKey } from '../../auth/signing-key.ts';
import type { AccessPattern } from '../../store/data-model.ts';
import { accountKey, accountSlugKey, type Key } from '../../store/keys.ts';
import { type ReadAhead, readItem } from '../../store/read-ahead.ts';
import { attributesOf, type Item, isUuid } from '../../store/records.ts';
import { knowRemovals } from '../../store/removals.ts';
import type { Transaction } from '../../store/transaction.ts';

export interface Account {
  id: string;
  slug: string;
  name: string;
  /** In a protected account, managed users cannot set an initial password themselves. */
  protected: boolean;
  created: string;
  updated: string;
  /** Absent only on an account made before signing keys existed, until its first use (signing-key.ts). */
  signingKey?: StoredSigningKey;
}

export const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** The key an account is found by: its record (UUID) or its slug's marker; undefined if it cannot name one. */
export function accountKeyFor(idOrSlug: string): Key | undefined {
  if (isUuid(idOrSlug)) return accountKey(idOrSlug.toLowerCase());
  return SLUG.test(idOrSlug.toLowerCase()) ? accountSlugKey(idOrSlug) : undefined;
}

/**
 * The account each slug named when this container last read the slug's marker: a guess that lets
 * a request naming its account by slug read ahead what it would read by id (requestKeys), the
 * guessed account's item instead of the slug's marker. The guess decides nothing: the account's
 * item holds its slug, written with the marker in every transaction that sets either, so an item
 * whose slug is another (the slug has moved) or no item at all sends findAccount to the marker, at
 * one round trip more for that request, and it never shows another account's items (every key
 * read ahead names the account it was read for). Oldest guesses go first beyond SLUG_GUESSES.
 */
const slugGuesses = new Map<string, string>();
const SLUG_GUESSES = 1000;

function rememberSlug(slug: string, accountId: string | undefined): void {
  slugGuesses.delete(slug);
  if (accountId === undefined) return;
  slugGuesses.set(slug, accountId);
  if (slugGuesses.size > SLUG_GUESSES) slugGuesses.delete(slugGuesses.keys().next().value as string);
}

/** The id of the account `idOrSlug` names: itself (a UUID), this container's guess for a slug, or undefined. */
export function accountIdGuess(idOrSlug: string): string | undefined {
  return isUuid(idOrSlug) ? idOrSlug.toLowerCase() : slugGuesses.get(idOrSlug.toLowerCase());
}

export async function findAccount(idOrSlug: string, ahead?: ReadAhead): Promise<Account | undefined> {
  const key = accountKeyFor(idOrSlug);
  if (!key) return undefined;
  let item: Item | undefined;
  if (isUuid(idOrSlug)) item = await readItem(ahead, key);
  else {
    const slug = idOrSlug.toLowerCase();
    const guess = accountIdGuess(slug);
    item = guess === undefined ? undefined : await readItem(ahead, accountKey(guess));
    if (item?.slug !== slug) {
      const marker = await readItem(ahead, key);
      const accountId = typeof marker?.accountId === 'string' ? marker.accountId : undefined;
      rememberSlug(slug, accountId);
      item = accountId === undefined ? undefined : await readItem(ahead, accountKey(accountId));
    }
  }
  // The account's item holds its register of removals under way: the request knows it from here.
  if (item && ahead) knowRemovals(ahead, item);
  return item && attributesOf<Account>(item);
}

/** Adds the account and its slug marker to a transaction; `taken` is raised if the slug is in use. */
export function putNewAccount(tx: Transaction, account: Account, taken: Error): void {
  tx.put({ ...accountKey(account.id), type: 'accounts', ...account }, { ifAbsent: taken });
  tx.put({ ...accountSlugKey(account.slug), accountId: account.id }, { ifAbsent: taken });
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 1,
    name: 'Account by id',
    operation: 'BatchGetItem (read ahead)',
    index: 'table',
    key: '`PK = ACCOUNT#<id>`',
    usedBy: 'pipeline (`findAccount`)',
    tests: ['store/data-model'],
  },
  {
    n: 2,
    name: 'Account by slug',
    operation:
      "BatchGetItem (read ahead): once the container has met the slug, the item of the account it last found under it (`accountIdGuess`) with the rest of the request's read-ahead named for that account, used when the item still holds the slug; else (a slug not met yet, or moved) GetItem of the slug's marker, then pattern 1",
    index: 'table',
    key: '`PK = ACCOUNT#<guessed id>` (its `slug` checked), else `PK = ACCOUNT_SLUG#<slug>` and pattern 1',
    usedBy: 'pipeline (`findAccount`, `requestKeys`)',
    tests: ['store/data-model', 'in-process/account-by-slug'],
  },
];
