/**
 * Accounts: the tenant every other record belongs to. An account is found by UUID or by
 * slug; the slug is held by a marker item so two accounts can never share one.
 */
import { accountKey, accountSlugKey } from '../../store/keys.ts';
import { getItem, isUuid, toRecord } from '../../store/records.ts';
import type { Transaction } from '../../store/transaction.ts';

export interface Account {
  id: string;
  slug: string;
  name: string;
  /** In a protected account, managed users cannot set an initial password themselves. */
  protected: boolean;
  created: string;
  updated: string;
}

export const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

export async function findAccount(idOrSlug: string): Promise<Account | undefined> {
  if (isUuid(idOrSlug)) {
    const item = await getItem(accountKey(idOrSlug.toLowerCase()));
    return item && toRecord<Account>(item);
  }
  if (!SLUG.test(idOrSlug.toLowerCase())) return undefined;
  const marker = await getItem(accountSlugKey(idOrSlug));
  if (!marker) return undefined;
  const item = await getItem(accountKey(marker.accountId as string));
  return item && toRecord<Account>(item);
}

/** Adds the account and its slug marker to a transaction; `taken` is raised if the slug is in use. */
export function putNewAccount(tx: Transaction, account: Account, taken: Error): void {
  tx.put({ ...accountKey(account.id), type: 'accounts', ...account }, { ifAbsent: taken });
  tx.put({ ...accountSlugKey(account.slug), accountId: account.id }, { ifAbsent: taken });
}
