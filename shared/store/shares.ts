/**
 * Counts kept across environments, with a share per environment: a license's machines
 * (shared/resources/machines/seats.ts) and a fingerprint's holders in a scope
 * (shared/licensing/fingerprints.ts). The whole count (SK `#`) counts every member; a
 * member inside an environment other than the count's own is counted as well in that
 * environment's share (SK `E#<environmentId>`), which carries the environment's ENVPK.
 *
 * The purge of an environment deletes its records in bulk without touching any count;
 * `giveBackShares` then returns each share to its count, deleting the share and subtracting what
 * it held in one transaction conditional on the share holding what was read. A re-run finds the
 * share gone and subtracts nothing; a member added or removed meanwhile changes the share, and
 * the share is read again. A member written there after the share went (a request in flight at
 * the delete) makes a new share, which the purge's second pass gives back. A fingerprint's count
 * that counts nobody once its share is given back is deleted.
 */

import type { AccessPattern } from './data-model.ts';
import { countOfShare, isFingerprintCount, type Key } from './keys.ts';
import { backoff, getItems } from './records.ts';
import { deleteEmptyCounts, Transaction } from './transaction.ts';

class ShareChanged extends Error {}
class CountGone extends Error {}

const PARALLEL = 10;
const MAX_ATTEMPTS = 10;

/** A share of a count, with the whole count it is part of. */
interface Share {
  shareKey: Key;
  countKey: Key;
}

/**
 * Gives back the shares held in a purged environment: every share among `keys` (items of the
 * environment, as the purge found them) is returned to its count and deleted. Returns the other
 * keys, for the purge to delete in bulk: a share is deleted only here, so a share changed since it
 * was read is never deleted with what it counts still counted.
 */
export async function giveBackShares(keys: Key[]): Promise<Key[]> {
  const shares: Share[] = [];
  const others: Key[] = [];
  for (const key of keys) {
    const countKey = countOfShare(key);
    if (countKey) shares.push({ shareKey: key, countKey });
    else others.push(key);
  }
  for (let i = 0; i < shares.length; i += PARALLEL) await Promise.all(shares.slice(i, i + PARALLEL).map(giveBackShare));
  return others;
}

async function giveBackShare({ shareKey, countKey }: Share): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const items = await getItems([shareKey, countKey]);
    const share = items.find((item) => item.SK === shareKey.SK);
    if (!share) return; // given back already
    const held = Number(share.n ?? 0);
    const counted = items.some((item) => item.SK === countKey.SK);
    const tx = new Transaction();
    tx.remove(shareKey, { state: { n: share.n }, changed: new ShareChanged() });
    // A count that is gone went with what it counts for (a license): there is nothing to give back to.
    if (counted && held !== 0) tx.tally(countKey, -held, { missing: new CountGone() });
    if (counted && isFingerprintCount(countKey)) tx.afterCommit(() => deleteEmptyCounts([countKey]));
    try {
      return await tx.commit();
    } catch (error) {
      if (!(error instanceof ShareChanged || error instanceof CountGone) || attempt >= MAX_ATTEMPTS) throw error;
      await backoff(attempt);
    }
  }
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 37,
    name: "Give a purged environment's shares back",
    operation:
      'BatchGetItem (share and count), then TransactWriteItems: Delete of the share if `n = :read`, Update `ADD n :-read` of the count if it exists; a fingerprint count left at 0 is then deleted if `n <= 0`',
    index: 'table',
    key: 'the shares among the keys of 13 (`SK` beginning `E#` under a `…#MACHINE_COUNT`, `…#PROCESS_COUNT` or `…#FINGERPRINT_COUNT#…` PK; `countOfShare`), their count at `SK = #`',
    usedBy: 'purge worker, before deleting each page',
    tests: ['store/data-model', 'http/machine-seats', 'http/components-uniqueness'],
  },
];
