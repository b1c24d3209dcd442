/**
 * Who may reach what in the licensing graph (products → policies → licenses → machines →
 * components), on top of the store's account and environment isolation:
 *
 *   admin, environment  everything the scope shows
 *   product             itself and every record whose productId is its id
 *   license             itself, its policy and product, its machines and their components
 *   user                licenses they own, machines and components they (or their license's
 *                       owner) own, and the products and policies of licenses they own
 *
 * A record out of a bearer's reach is not found (404), exactly like one out of the scope's;
 * a reachable record the bearer may not change is refused (403) afterwards.
 */
import { can, isAdministrator, type Bearer } from '../../auth/bearer.ts';
import type { Permission } from '../../auth/permissions.ts';
import { forbidden, unprocessable } from '../../http/errors.ts';
import type { RequestContext } from '../../http/pipeline.ts';
import { childItems, deleteWithChildren } from '../../store/cascade.ts';
import { RecordNotFound } from '../../store/errors.ts';
import type { RecordType } from '../../store/keys.ts';
import { listCollection } from '../../store/paging.ts';
import { isUuid, requireVisibleItem, requireWritable, getVisibleItem, type Item } from '../../store/records.ts';
import { globalScope, type Scope } from '../../store/scope.ts';
import type { Transaction } from '../../store/transaction.ts';
import { guardRegister, removeLookup, tokensOf } from '../tokens/service.ts';
import type { Environment } from '../environments/environment.ts';
import { dropSeats, giveSeatBack } from '../machines/seats.ts';

export type BearerContext = RequestContext & { bearer: Bearer };

/** The collections each type joins, by slot (slot i = GSI(i+2)). */
export const SLOTS = {
  policies: { product: 0 },
  licenses: { policy: 0, product: 1, owner: 2 },
  machines: { license: 0, product: 1, owner: 2 },
  components: { machine: 0, license: 1, product: 2, owner: 3 },
} as const;

/** Whether the bearer may see this (scope-visible) record at all. */
export async function reaches(ctx: BearerContext, item: Item): Promise<boolean> {
  const { bearer } = ctx;
  const type = item.type as RecordType;
  // Users are reached here only as the target of an owner relationship.
  if (type === 'users') return isAdministrator(bearer) || bearer.kind === 'product' || (bearer.kind === 'user' && item.id === bearer.id);
  switch (bearer.kind) {
    case 'admin':
    case 'environment':
      return true;
    case 'product':
      return type === 'products' ? item.id === bearer.id : item.productId === bearer.id;
    case 'license':
      if (type === 'products') return item.id === bearer.productId;
      if (type === 'policies') return item.id === bearer.policyId;
      if (type === 'licenses') return item.id === bearer.id;
      return item.licenseId === bearer.id;
    case 'user':
      if (type === 'products') return ownsLicenseWhere(ctx.scope, bearer.id, 'productId', item.id as string);
      if (type === 'policies') return ownsLicenseWhere(ctx.scope, bearer.id, 'policyId', item.id as string);
      if (type === 'licenses') return item.ownerId === bearer.id;
      return item.ownerId === bearer.id || item.licenseOwnerId === bearer.id;
    default:
      return false;
  }
}

/** Whether the user owns a license with `attribute = value`: one read of the user's licenses. */
async function ownsLicenseWhere(scope: Scope, userId: string, attribute: string, value: string): Promise<boolean> {
  const page = await listCollection(
    scope,
    { type: 'licenses', parent: { type: 'users', id: userId, slot: SLOTS.licenses.owner }, where: { [attribute]: value } },
    { mode: 'cursor', cursor: null, size: 1 },
  );
  return page.records.length > 0;
}

/** A record the bearer reaches (404 otherwise); `write` also requires it to be in the request's environment (403). */
export async function reachableItem(ctx: BearerContext, type: RecordType, id: string, write = false): Promise<Item> {
  const item = await requireVisibleItem(ctx.scope, type, id);
  if (!(await reaches(ctx, item))) throw new RecordNotFound(type, id);
  if (write) requireWritable(ctx.scope, item);
  return item;
}

export function requirePermission(bearer: Bearer, permission: Permission, action: string): void {
  if (!can(bearer, permission)) throw forbidden(`This bearer may not ${action}`);
}

/** Administrators (admin and environment bearers) within reach only. */
export function requireAdministrator(bearer: Bearer, permission: Permission, action: string): void {
  if (!isAdministrator(bearer) || !can(bearer, permission)) throw forbidden(`Only administrators may ${action}`);
}

/**
 * A record named by a relationship of a create body. Missing, out of the scope or out of the
 * bearer's reach: 422 `<RELATIONSHIP>_NOT_FOUND` pointing at the relationship. What the scope
 * shows is exactly what a new record may hang on (its own environment, or global from a
 * SHARED one), so compatibility (DECISIONS §3) holds by construction.
 */
export async function relatedItem(ctx: BearerContext, type: RecordType, id: string, relationship: string): Promise<Item> {
  const item = isUuid(id) ? await getVisibleItem(ctx.scope, type, id) : undefined;
  if (!item || !(await reaches(ctx, item))) {
    throw unprocessable(
      `${relationship.toUpperCase()}_NOT_FOUND`,
      `${relationship} '${id}' was not found`,
      `/data/relationships/${relationship}`,
    );
  }
  return item;
}

/** The id a create body gives for a relationship (the body's shape is already validated). */
export const relationshipId = (data: unknown, name: string): string | undefined =>
  (data as { relationships?: Record<string, { data?: { id?: string } } | undefined> }).relationships?.[name]?.data?.id;

/**
 * The environments whose partitions may hold children of a record: its own; for a global
 * record also every SHARED environment, where records may hang on global ones.
 */
async function childEnvironments(accountId: string, environmentId: string | null): Promise<(string | null)[]> {
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
    environments.map((environmentId) => childItems(accountId, environmentId, type, { type: parent.type as RecordType, id: parent.id as string }, slot)),
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

/** Everything that hangs on a record, deepest first (components, machines, licenses, policies, tokens). */
async function descendants(item: Item, environments: (string | null)[], registers: Registers): Promise<Item[]> {
  const accountId = item.accountId as string;
  switch (item.type) {
    case 'machines':
      return children(accountId, environments, 'components', item, SLOTS.components.machine);
    case 'licenses': {
      const [components, machines, tokens] = await Promise.all([
        children(accountId, environments, 'components', item, SLOTS.components.license),
        children(accountId, environments, 'machines', item, SLOTS.machines.license),
        tokensFrom(item, registers),
      ]);
      return [...components, ...machines, ...tokens];
    }
    case 'policies': {
      const licenses = await children(accountId, environments, 'licenses', item, SLOTS.licenses.policy);
      const below = await Promise.all(licenses.map((license) => descendants(license, environments, registers)));
      return [...below.flat(), ...licenses];
    }
    case 'products': {
      const [components, machines, licenses, policies, tokens] = await Promise.all([
        children(accountId, environments, 'components', item, SLOTS.components.product),
        children(accountId, environments, 'machines', item, SLOTS.machines.product),
        children(accountId, environments, 'licenses', item, SLOTS.licenses.product),
        children(accountId, environments, 'policies', item, SLOTS.policies.product),
        tokensFrom(item, registers),
      ]);
      const licenseTokens = (await Promise.all(licenses.map((license) => tokensFrom(license, registers)))).flat();
      return [...components, ...machines, ...licenseTokens, ...licenses, ...policies, ...tokens];
    }
    default:
      return [];
  }
}

/**
 * Removing a record removes what hangs on it (DECISIONS §7), deepest first, with their
 * uniqueness markers, counters and token lookups; the record itself goes in the last
 * transaction, with the event `announce` adds for it. Children are handed to the store a few at a time: each child leaves up to five
 * collections, and the counters of one transaction must stay within DynamoDB's 100 operations.
 */
export async function removeWithDescendants(item: Item, announce: (tx: Transaction) => Promise<unknown>): Promise<void> {
  const environments = await childEnvironments(item.accountId as string, (item.environmentId as string | null) ?? null);
  const registers: Registers = new Map();
  const items = await descendants(item, environments, registers);
  const alsoDelete = (tx: Transaction, child: Item) => {
    if (child.type === 'tokens') removeLookup(tx, child);
    if (registers.has(child.PK)) guardRegister(tx, child, registers.get(child.PK), true);
    // A machine gives its seat back; a license's count goes with it (machines go first).
    if (child.type === 'machines') giveSeatBack(tx, child);
    if (child.type === 'licenses') dropSeats(tx, child);
  };
  const GROUP = 10;
  for (let i = 0; i + GROUP < items.length; i += GROUP) await deleteWithChildren(items.slice(i, i + GROUP), () => {}, alsoDelete);
  const rest = items.slice(Math.max(0, Math.floor((items.length - 1) / GROUP) * GROUP));
  await deleteWithChildren(
    rest,
    async (tx) => {
      tx.delete(item, new RecordNotFound(item.type as string, item.id as string));
      alsoDelete(tx, item);
      await announce(tx);
    },
    alsoDelete,
  );
}
