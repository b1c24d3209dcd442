/**
 * Accounts: the tenant every other record belongs to. An account is found by UUID or by
 * slug; the slug is held by a marker item so two accounts can never share one.
 */
import type { StoredSigningKey } from '../../auth/signing-key.ts';
import type { AccessPattern } from '../../store/data-model.ts';
import { accountKey, accountSlugKey, type Key } from '../../store/keys.ts';
import { type ReadAhead, readItem } from '../../store/read-ahead.ts';
import { attributesOf, getItem, isUuid } from '../../store/records.ts';
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

export async function findAccount(idOrSlug: string, ahead?: ReadAhead): Promise<Account | undefined> {
  const key = accountKeyFor(idOrSlug);
  let item = key && (await readItem(ahead, key));
  if (item && item.type !== 'accounts') item = await getItem(accountKey(item.accountId as string));
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
    operation: 'BatchGetItem (read ahead), then GetItem',
    index: 'table',
    key: '`PK = ACCOUNT_SLUG#<slug>`, then pattern 1',
    usedBy: 'pipeline (`findAccount`)',
    tests: ['store/data-model'],
  },
];
