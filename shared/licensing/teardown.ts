/**
 * What taking one record of the licensing graph out writes, wherever it happens (a removal in its
 * request, the cascades worker): the record with its uniqueness markers and collection counts
 * (the store's delete), and per type what else hangs on it alone:
 *
 *   token    its lookup and its entry in its bearer's register
 *   product, license   its token register (conditional on the serial read: a token generated since fails the write)
 *   machine  its seat and cores given back to its license, its fingerprint entry, its process count
 *   license  its machine, core and process counts
 *
 * A record whose descendants are removed after it (by the cascades worker) keeps the counts they
 * are counted in (`keepHeldCounts`) until they have gone, as a removal deepest first would.
 */

import { unlistByFingerprint } from '../resources/machines/fingerprints.ts';
import { giveSeatBack, seatAsRead } from '../resources/machines/seats.ts';
import { dropMachineProcessCount } from '../resources/processes/counts.ts';
import { guardRegister, removeLookup } from '../resources/tokens/service.ts';
import { type Key, licenseCoreCountKey, licenseMachineCountKey, licenseProcessCountKey, machineProcessCountKey } from '../store/keys.ts';
import { itemOfType, type PlacedItem } from '../store/records.ts';
import type { Transaction } from '../store/transaction.ts';

export interface TakeOut {
  /** Raised when the record is gone (or, for a machine, its cores changed) since it was read. */
  missing?: Error;
  /** Its token register as read (products, licenses): the write fails if a token was generated since. */
  register?: { serial: number | undefined };
  /** The counts its descendants are counted in stay for them (a license's seats, a machine's processes). */
  keepHeldCounts?: boolean;
  /** Whether a count item exists, when that was read: one that does not needs no delete. */
  exists?: (key: Key) => boolean;
}

/**
 * What a record's delete requires to be still as read: a machine gives back the cores it counts as
 * read; a license leaves its policy's counts, a machine or a component the counts of its
 * fingerprint in its policy's scope, as they were when read (a move to another policy changes
 * them: docs/rules.md §18.12).
 */
function asRead(item: PlacedItem): Record<string, unknown> | undefined {
  const policy = POLICY_COUNTED.has(item.type) && typeof item.policyId === 'string' ? { policyId: item.policyId } : {};
  const seat = item.type === 'machines' ? seatAsRead(item) : {};
  const state = { ...policy, ...seat };
  return Object.keys(state).length > 0 ? state : undefined;
}

const POLICY_COUNTED: ReadonlySet<string> = new Set(['licenses', 'machines', 'components']);

/** Writes into `tx` the removal of `item` (see the top). */
export function takeOut(tx: Transaction, item: PlacedItem, options: TakeOut = {}): void {
  tx.delete(item, options.missing, asRead(item));
  if (options.register) guardRegister(tx, item, options.register.serial, true);
  switch (item.type) {
    case 'tokens': {
      const token = itemOfType('tokens', item);
      if (token) removeLookup(tx, token);
      break;
    }
    case 'machines':
      giveSeatBack(tx, item);
      unlistByFingerprint(tx, item);
      if (!options.keepHeldCounts && (options.exists?.(machineProcessCountKey(item.accountId, item.id)) ?? true)) {
        dropMachineProcessCount(tx, item);
      }
      break;
    case 'licenses':
      if (!options.keepHeldCounts) dropCountsOfLicense(tx, item, options.exists);
      break;
  }
}

/**
 * The counts a license's machines and processes are counted in go with it, once they have gone
 * (those `exists` says may exist: a count that does not exist needs no delete). Its core count
 * goes with its machine count: cores are counted only with a machine.
 */
export function dropCountsOfLicense(tx: Transaction, license: PlacedItem, exists: (key: Key) => boolean = () => true): void {
  const accountId = license.accountId;
  const id = license.id;
  const machines = licenseMachineCountKey(accountId, id);
  if (exists(machines)) {
    tx.dropTally(machines);
    tx.dropTally(licenseCoreCountKey(accountId, id));
  }
  const processes = licenseProcessCountKey(accountId, id);
  if (exists(processes)) tx.dropTally(processes);
}
