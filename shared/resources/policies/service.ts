/**
 * Policies, under a product: administrators and the product's bearer manage them; licensees
 * read the policies of their licenses.
 */

import type { Actor } from '../../auth/actor.ts';
import { authorize, authorizeAction, restriction } from '../../auth/authorize.ts';
import { conflict, ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { relatedItem } from '../../licensing/graph.ts';
import { type Filter, type FilterValues, filteredList } from '../../licensing/lists.ts';
import { removeWithDescendants } from '../../licensing/removal.ts';
import { parentsOf } from '../../licensing/slots.ts';
import { RecordNotFound } from '../../store/errors.ts';
import type { Page, PageRequest } from '../../store/paging.ts';
import { recordKeyOf, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { attributePointer, type Metadata, maxLength, metadataRule, newRecord, now, oneOf } from '../rules.ts';
import { CHECK_IN_INTERVALS, checkInOf } from './check-in.ts';
import { policyDocument } from './document.ts';
import {
  AUTHENTICATION_STRATEGIES,
  authenticationStrategyOf,
  DURATION_MAX,
  DURATION_MIN,
  EXPIRATION_BASES,
  EXPIRATION_STRATEGIES,
  expirationOf,
  KEY_SCHEMES,
  MACHINE_UNIQUENESS_STRATEGIES,
  MATCHING_STRATEGIES,
  type PolicyRecord,
  RENEWAL_BASES,
  TRANSFER_STRATEGIES,
  transferStrategyOf,
  UNIQUENESS_STRATEGIES,
} from './entity.ts';
import { HEARTBEAT_BASES, HEARTBEAT_CULL_STRATEGIES, HEARTBEAT_RESURRECTION_STRATEGIES } from './heartbeat.ts';
import { OVERAGE_STRATEGIES, PROCESS_LEASING_STRATEGIES } from './limits.ts';
import { judgeSettings, overridableLimitRule, settingsOf } from './rules.ts';
import { startsWatching, walkStart } from './sweep.ts';

/** What a policy may change; the strategies are checked against the model's (422 when unknown). */
export interface PolicyChanges {
  name?: string;
  componentUniquenessStrategy?: string;
  componentMatchingStrategy?: string;
  machineUniquenessStrategy?: string;
  requireComponentsScope?: boolean;
  protected?: boolean;
  /** null: no limit. */
  maxMachines?: number | null;
  /** Seconds; null: perpetual. */
  duration?: number | null;
  expirationStrategy?: string;
  expirationBasis?: string;
  renewalBasis?: string;
  floating?: boolean;
  strict?: boolean;
  /** null: no limit. */
  maxCores?: number | null;
  maxProcesses?: number | null;
  /** null: no limit. */
  maxUses?: number | null;
  /** null: no limit. */
  maxUsers?: number | null;
  authenticationStrategy?: string;
  transferStrategy?: string;
  requireCheckIn?: boolean;
  checkInInterval?: string | null;
  checkInIntervalCount?: number | null;
  overageStrategy?: string;
  processLeasingStrategy?: string;
  requireHeartbeat?: boolean;
  /** Seconds; null: 600. */
  heartbeatDuration?: number | null;
  heartbeatCullStrategy?: string;
  heartbeatResurrectionStrategy?: string;
  heartbeatBasis?: string;
  metadata?: Metadata;
}

export interface NewPolicy extends PolicyChanges {
  name: string;
  productId: string;
  /** null or absent: random keys; anything but KEY_SCHEMES → 422. */
  scheme?: string | null;
  usePool?: boolean;
}

/** The changes checked against the model's rules, with only the attributes given. */
function rules(input: PolicyChanges): Partial<PolicyRecord> {
  maxLength('name', input.name, 255);
  metadataRule(input.metadata);
  if (input.duration != null && (input.duration < DURATION_MIN || input.duration > DURATION_MAX)) {
    throw ruleBroken(
      'DURATION_INVALID',
      `duration must be between ${DURATION_MIN} and ${DURATION_MAX} seconds (or null for perpetual licenses)`,
      attributePointer('duration'),
    );
  }
  overridableLimitRule('maxUses', input.maxUses);
  overridableLimitRule('maxUsers', input.maxUsers);
  const checked: Partial<PolicyRecord> = {
    ...input,
    componentUniquenessStrategy: oneOf('componentUniquenessStrategy', input.componentUniquenessStrategy, UNIQUENESS_STRATEGIES),
    componentMatchingStrategy: oneOf('componentMatchingStrategy', input.componentMatchingStrategy, MATCHING_STRATEGIES),
    machineUniquenessStrategy: oneOf('machineUniquenessStrategy', input.machineUniquenessStrategy, MACHINE_UNIQUENESS_STRATEGIES),
    expirationStrategy: oneOf('expirationStrategy', input.expirationStrategy, EXPIRATION_STRATEGIES),
    expirationBasis: oneOf('expirationBasis', input.expirationBasis, EXPIRATION_BASES),
    renewalBasis: oneOf('renewalBasis', input.renewalBasis, RENEWAL_BASES),
    overageStrategy: oneOf('overageStrategy', input.overageStrategy, OVERAGE_STRATEGIES),
    processLeasingStrategy: oneOf('processLeasingStrategy', input.processLeasingStrategy, PROCESS_LEASING_STRATEGIES),
    heartbeatCullStrategy: oneOf('heartbeatCullStrategy', input.heartbeatCullStrategy, HEARTBEAT_CULL_STRATEGIES),
    heartbeatResurrectionStrategy: oneOf(
      'heartbeatResurrectionStrategy',
      input.heartbeatResurrectionStrategy,
      HEARTBEAT_RESURRECTION_STRATEGIES,
    ),
    heartbeatBasis: oneOf('heartbeatBasis', input.heartbeatBasis, HEARTBEAT_BASES),
    authenticationStrategy: oneOf('authenticationStrategy', input.authenticationStrategy, AUTHENTICATION_STRATEGIES),
    transferStrategy: oneOf('transferStrategy', input.transferStrategy, TRANSFER_STRATEGIES),
    checkInInterval: input.checkInInterval === null ? null : oneOf('checkInInterval', input.checkInInterval, CHECK_IN_INTERVALS),
  };
  for (const [name, value] of Object.entries(checked)) if (value === undefined) delete checked[name as keyof PolicyRecord];
  return checked;
}

export async function createPolicy(actor: Actor, input: NewPolicy): Promise<PolicyRecord> {
  await authorizeAction(actor, 'policies', 'create');
  const { productId, scheme, usePool = false, ...attributes } = input;
  const checked = rules(attributes);
  const keyScheme = scheme == null ? null : (oneOf('scheme', scheme, KEY_SCHEMES) ?? null);
  // A pooled key is given, not made: it cannot be a signed one.
  if (usePool && keyScheme !== null) {
    throw ruleBroken('USE_POOL_NOT_SUPPORTED', 'cannot be used with a key scheme', attributePointer('usePool'));
  }
  // A node-locked policy is for one machine: maxMachines follows floating false when not given.
  if (checked.floating === false && !('maxMachines' in checked)) checked.maxMachines = 1;
  judgeSettings(checked);
  const product = toRecord('products', await relatedItem(actor, 'products', productId, 'product'));
  const policy: PolicyRecord = {
    ...newRecord('policies', actor.scope),
    productId: product.id,
    name: input.name,
    componentUniquenessStrategy: checked.componentUniquenessStrategy ?? 'UNIQUE_PER_MACHINE',
    componentMatchingStrategy: checked.componentMatchingStrategy ?? 'MATCH_ANY',
    machineUniquenessStrategy: checked.machineUniquenessStrategy ?? 'UNIQUE_PER_LICENSE',
    requireComponentsScope: checked.requireComponentsScope ?? false,
    protected: checked.protected ?? false,
    maxMachines: checked.maxMachines ?? null,
    maxUses: checked.maxUses ?? null,
    maxUsers: checked.maxUsers ?? null,
    authenticationStrategy: authenticationStrategyOf(checked),
    transferStrategy: transferStrategyOf(checked),
    ...checkInOf(checked),
    scheme: keyScheme,
    usePool,
    ...expirationOf(checked),
    ...storedSettings(checked),
    metadata: checked.metadata ?? {},
  };
  const tx = new Transaction();
  tx.create(policy, { parents: parentsOf('policies', { product: product.id }) });
  tx.requireExists(recordKeyOf(product), ruleBroken('PRODUCT_NOT_FOUND', 'product was deleted', '/data/relationships/product'));
  await emitEvent(tx, originOf(policy, actor.scope), 'policy.created', policyDocument(policy));
  await tx.commit();
  return policy;
}

export async function retrievePolicy(actor: Actor, id: string): Promise<PolicyRecord> {
  return toRecord('policies', await authorize(actor, 'policies', id, 'read'));
}

/**
 * The limits and heartbeat settings a new policy stores: each given or its default, but for
 * floating and heartbeatBasis, kept only when given (their defaults follow other attributes).
 */
function storedSettings(checked: Partial<PolicyRecord>): Partial<PolicyRecord> {
  const { floating, heartbeatBasis, ...settings } = settingsOf(checked);
  return {
    ...settings,
    ...(checked.floating !== undefined ? { floating } : {}),
    ...(checked.heartbeatBasis !== undefined ? { heartbeatBasis } : {}),
  };
}

/**
 * The `updated` of a change of a record last updated at `previous`: now, but always after
 * `previous`, so that the next update's condition on the `updated` it read tells the two apart
 * (clocks of different hosts, or two writes within a millisecond, could otherwise stamp both
 * alike).
 */
function updatedAfter(previous: unknown): string {
  const stamp = now();
  if (typeof previous !== 'string' || stamp > previous) return stamp;
  return new Date(Date.parse(previous) + 1).toISOString();
}

/**
 * An update is judged with the policy's other attributes as stored, and lands only while the
 * policy is still as read (409 otherwise): two updates that each keep the rules cannot together
 * break one.
 */
export async function updatePolicy(actor: Actor, id: string, changes: PolicyChanges): Promise<PolicyRecord> {
  const item = await authorize(actor, 'policies', id, 'update');
  const checked = rules(changes);
  const merged = { ...toRecord('policies', item), ...checked };
  judgeSettings(merged);
  // Heartbeats required from now on: the machines already activated are walked into the due index (sweep.ts).
  const walk = startsWatching(item, merged) ? walkStart() : {};
  const tx = new Transaction();
  const updated = toRecord(
    'policies',
    tx.update(
      item,
      { ...checked, ...walk, updated: updatedAfter(item.updated) },
      {
        missing: new RecordNotFound('policies', id),
        unchanged: { updated: item.updated },
        conflict: conflict('the policy changed meanwhile'),
      },
    ),
  );
  await emitEvent(tx, originOf(updated, actor.scope), 'policy.updated', policyDocument(updated));
  await tx.commit();
  return updated;
}

export async function deletePolicy(actor: Actor, id: string): Promise<void> {
  const item = await authorize(actor, 'policies', id, 'delete');
  const removed = toRecord('policies', item);
  await removeWithDescendants(item, (tx) => emitEvent(tx, originOf(removed, actor.scope), 'policy.deleted', policyDocument(removed)));
}

const FILTERS: readonly Filter<'policies'>[] = [{ params: ['product'], parent: 'product' }];

export async function listPolicies(
  actor: Actor,
  filters: FilterValues,
  page: PageRequest,
  forced: Record<string, string> = {},
): Promise<Page<PolicyRecord>> {
  await authorizeAction(actor, 'policies', 'list');
  return filteredList(actor.scope, 'policies', FILTERS, filters, [restriction(actor, 'policies'), forced], page);
}

/** The policy a record belongs to, seen by the rules of policies. */
export const relatedPolicy = (actor: Actor, record: { policyId: string }) => retrievePolicy(actor, record.policyId);
