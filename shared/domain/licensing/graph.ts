/**
 * The licensing graph's structure (products → policies → licenses → machines → components, processes):
 * the collections each type joins, the records a create body's relationships name, and the
 * removal of a record with everything that hangs on it. Who may reach what is the policies'
 * (shared/auth/policies/licensing.ts).
 */

import type { Actor } from '../../auth/actor.ts';
import { relatable } from '../../auth/authorize.ts';
import type { PolicyType } from '../../auth/policies/index.ts';
import { ruleBroken } from '../../errors.ts';
import { logger } from '../../logger.ts';
import { childItems, deleteWithChildren } from '../../store/cascade.ts';
import { RecordNotFound } from '../../store/errors.ts';
import type { RecordType } from '../../store/keys.ts';
import { listCollection } from '../../store/paging.ts';
import { getVisibleItem, type Item, isUuid } from '../../store/records.ts';
import { globalScope } from '../../store/scope.ts';
import type { Transaction } from '../../store/transaction.ts';
import { removeSetsOf } from '../entitlements/attachments.ts';
import type { Environment } from '../environments/environment.ts';
import { unlistByFingerprint } from '../machines/fingerprints.ts';
import { dropSeats, giveSeatBack, SeatChanged, seatAsRead } from '../machines/seats.ts';
import { dropLicenseProcessCount, dropMachineProcessCount } from '../processes/counts.ts';
import { guardRegister, removeLookup, tokensOf } from '../tokens/service.ts';
import { SLOTS } from './slots.ts';

/**
 * A record named by a relationship of a create body. Missing, out of the scope or out of the
 * bearer's reach: 422 `<RELATIONSHIP>_NOT_FOUND` pointing at the relationship. What the scope
 * shows is exactly what a new record may hang on (its own environment, or global from a
 * SHARED one), so compatibility (docs/rules.md §3) holds by construction.
 */
export async function relatedItem(actor: Actor, type: PolicyType & RecordType, id: string, relationship: string): Promise<Item> {
  const item = isUuid(id) ? await getVisibleItem(actor.scope, type, id) : undefined;
  if (!item || !(await relatable(actor, type, item))) {
    throw ruleBroken(
      `${relationship.toUpperCase()}_NOT_FOUND`,
      `${relationship} '${id}' was not found`,
      `/data/relationships/${relationship}`,
    );
  }
  return item;
}

/**
 * The environments whose partitions may hold children of a record: its own; for a global
 * record also every SHARED environment, where records may hang on global ones.
 */
export async function childEnvironments(accountId: string, environmentId: string | null): Promise<(string | null)[]> {
  if (environmentId !== null) return [environmentId];
  const shared: string[] = [];
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<typeof listCollection<Environment>>> = await listCollection<Environment>(
      globalScope(accountId),
      { type: 'environments' },
      { mode: 'cursor', cursor, size: 100 },
    );
    shared.push(...page.records.filter((e) => e.isolationStrategy === 'SHARED').map((e) => e.id));
    cursor = page.nextCursor ?? null;
  } while (cursor);
  return [null, ...shared];
}

async function children(accountId: string, environments: (string | null)[], type: RecordType, parent: Item, slot: number): Promise<Item[]> {
  const lists = await Promise.all(
    environments.map((environmentId) =>
      childItems(accountId, environmentId, type, { type: parent.type as RecordType, id: parent.id as string }, slot),
    ),
  );
  return lists.flat();
}

/** The serial of each bearer's token register as read, so its delete fails if a token was generated since. */
type Registers = Map<string, number | undefined>;

async function tokensFrom(item: Item, registers: Registers): Promise<Item[]> {
  const { serial, tokens } = await tokensOf(item);
  registers.set(item.PK, serial);
  return tokens;
}

/** Everything that hangs on a record, deepest first (components, processes, machines, licenses, policies, tokens). */
async function descendants(item: Item, environments: (string | null)[], registers: Registers): Promise<Item[]> {
  const accountId = item.accountId as string;
  switch (item.type) {
    case 'machines': {
      const [components, processes] = await Promise.all([
        children(accountId, environments, 'components', item, SLOTS.components.machine),
        children(accountId, environments, 'processes', item, SLOTS.processes.machine),
      ]);
      return [...components, ...processes];
    }
    case 'licenses': {
      const [components, processes, machines, tokens] = await Promise.all([
        children(accountId, environments, 'components', item, SLOTS.components.license),
        children(accountId, environments, 'processes', item, SLOTS.processes.license),
        children(accountId, environments, 'machines', item, SLOTS.machines.license),
        tokensFrom(item, registers),
      ]);
      return [...components, ...processes, ...machines, ...tokens];
    }
    case 'policies': {
      const licenses = await children(accountId, environments, 'licenses', item, SLOTS.licenses.policy);
      const below = await Promise.all(licenses.map((license) => descendants(license, environments, registers)));
      return [...below.flat(), ...licenses];
    }
    case 'products': {
      const [components, processes, machines, licenses, policies, tokens] = await Promise.all([
        children(accountId, environments, 'components', item, SLOTS.components.product),
        children(accountId, environments, 'processes', item, SLOTS.processes.product),
        children(accountId, environments, 'machines', item, SLOTS.machines.product),
        children(accountId, environments, 'licenses', item, SLOTS.licenses.product),
        children(accountId, environments, 'policies', item, SLOTS.policies.product),
        tokensFrom(item, registers),
      ]);
      const licenseTokens = (await Promise.all(licenses.map((license) => tokensFrom(license, registers)))).flat();
      return [...components, ...processes, ...machines, ...licenseTokens, ...licenses, ...policies, ...tokens];
    }
    default:
      return [];
  }
}

/**
 * Removing a record removes what hangs on it (docs/rules.md §7), deepest first, with their
 * uniqueness markers, counters and token lookups; the record itself goes in the last
 * transaction, with the event `announce` adds for it. The store sizes the transactions by what
 * each child's delete writes (shared/store/cascade.ts). A machine removed on its own fails with
 * `SeatChanged` when its cores changed since it was read (seats.ts); within a license's removal
 * its license's counts go anyway.
 */
export async function removeWithDescendants(item: Item, announce: (tx: Transaction) => Promise<unknown>): Promise<void> {
  const environments = await childEnvironments(item.accountId as string, (item.environmentId as string | null) ?? null);
  const registers: Registers = new Map();
  const items = await descendants(item, environments, registers);
  const alsoDelete = (tx: Transaction, child: Item) => {
    if (child.type === 'tokens') removeLookup(tx, child);
    if (registers.has(child.PK)) guardRegister(tx, child, registers.get(child.PK), true);
    // A machine gives its seat back and leaves its fingerprint's entry; a license's counts go with it (machines go first).
    // A process leaves its counts by itself (its `counted`); a machine's and a license's process counts go with them.
    if (child.type === 'machines') {
      giveSeatBack(tx, child);
      unlistByFingerprint(tx, child);
      dropMachineProcessCount(tx, child);
    }
    if (child.type === 'licenses') {
      dropSeats(tx, child);
      dropLicenseProcessCount(tx, child);
    }
  };
  await deleteWithChildren(
    items,
    async (tx) => {
      // A machine gives back the cores it counts as read: its delete requires them unchanged.
      if (item.type === 'machines') tx.delete(item, new SeatChanged(), seatAsRead(item));
      else tx.delete(item, new RecordNotFound(item.type as string, item.id as string));
      alsoDelete(tx, item);
      await announce(tx);
    },
    alsoDelete,
  );
  // The entitlements of the policies and licenses removed go once those are gone, not before: a
  // removal that fails leaves its records as they were, attachments included. An attach racing
  // the removal fails on its holder. Should this step fail, the sets left name holders that no
  // longer exist and nothing reads them (an environment's purge takes its own).
  await removeSetsOf([...items, item]).catch((error: unknown) =>
    logger.error('the entitlement sets of removed records were left behind', { recordId: item.id, error: error as Error }),
  );
}
