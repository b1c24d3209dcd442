/**
 * Policies, under a product: administrators and the product's bearer manage them; licensees
 * read the policies of their licenses.
 */

import { randomUUID } from 'node:crypto';
import type { Actor } from '../../auth/actor.ts';
import { authorize, authorizeAction, restriction } from '../../auth/authorize.ts';
import { ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import type { Page, PageRequest } from '../../store/paging.ts';
import { recordKeyOf, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { updateAndAnnounce } from '../changes.ts';
import { relatedItem, removeWithDescendants } from '../licensing/graph.ts';
import { type Filter, type FilterValues, filteredList } from '../licensing/lists.ts';
import { SLOTS } from '../licensing/slots.ts';
import type { ProductRecord } from '../products/product.ts';
import { attributePointer, type Metadata, maxLength, metadataRule, now, oneOf } from '../rules.ts';
import { policyDocument } from './document.ts';
import {
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
  UNIQUENESS_STRATEGIES,
} from './policy.ts';

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
  metadata?: Metadata;
}

export interface NewPolicy extends PolicyChanges {
  name: string;
  productId: string;
  /** null or absent: random keys; anything but KEY_SCHEMES → 422. */
  scheme?: string | null;
}

/** The changes checked against the model's rules, with only the attributes given. */
function rules(input: PolicyChanges): Partial<PolicyRecord> {
  maxLength('name', input.name, 255);
  metadataRule(input.metadata);
  if (input.maxMachines != null && input.maxMachines < 1) {
    throw ruleBroken('MAX_MACHINES_INVALID', 'maxMachines must be at least 1 (or null for no limit)', attributePointer('maxMachines'));
  }
  if (input.duration != null && (input.duration < DURATION_MIN || input.duration > DURATION_MAX)) {
    throw ruleBroken(
      'DURATION_INVALID',
      `duration must be between ${DURATION_MIN} and ${DURATION_MAX} seconds (or null for perpetual licenses)`,
      attributePointer('duration'),
    );
  }
  const checked: Partial<PolicyRecord> = {
    ...input,
    componentUniquenessStrategy: oneOf('componentUniquenessStrategy', input.componentUniquenessStrategy, UNIQUENESS_STRATEGIES),
    componentMatchingStrategy: oneOf('componentMatchingStrategy', input.componentMatchingStrategy, MATCHING_STRATEGIES),
    machineUniquenessStrategy: oneOf('machineUniquenessStrategy', input.machineUniquenessStrategy, MACHINE_UNIQUENESS_STRATEGIES),
    expirationStrategy: oneOf('expirationStrategy', input.expirationStrategy, EXPIRATION_STRATEGIES),
    expirationBasis: oneOf('expirationBasis', input.expirationBasis, EXPIRATION_BASES),
    renewalBasis: oneOf('renewalBasis', input.renewalBasis, RENEWAL_BASES),
  };
  for (const [name, value] of Object.entries(checked)) if (value === undefined) delete checked[name as keyof PolicyRecord];
  return checked;
}

export async function createPolicy(actor: Actor, input: NewPolicy): Promise<PolicyRecord> {
  await authorizeAction(actor, 'policies', 'create');
  const { productId, scheme, ...attributes } = input;
  const checked = rules(attributes);
  const keyScheme = scheme == null ? null : (oneOf('scheme', scheme, KEY_SCHEMES) ?? null);
  const product = toRecord<ProductRecord>(await relatedItem(actor, 'products', productId, 'product'));
  const timestamp = now();
  const policy: PolicyRecord = {
    type: 'policies',
    id: randomUUID(),
    accountId: actor.scope.accountId,
    environmentId: actor.scope.environmentId,
    created: timestamp,
    updated: timestamp,
    productId: product.id,
    name: input.name,
    componentUniquenessStrategy: checked.componentUniquenessStrategy ?? 'UNIQUE_PER_MACHINE',
    componentMatchingStrategy: checked.componentMatchingStrategy ?? 'MATCH_ANY',
    machineUniquenessStrategy: checked.machineUniquenessStrategy ?? 'UNIQUE_PER_LICENSE',
    requireComponentsScope: checked.requireComponentsScope ?? false,
    protected: checked.protected ?? false,
    maxMachines: checked.maxMachines ?? null,
    scheme: keyScheme,
    ...expirationOf(checked),
    metadata: checked.metadata ?? {},
  };
  const tx = new Transaction();
  tx.create(policy, { parents: [{ type: 'products', id: product.id }] });
  tx.requireExists(recordKeyOf(product), ruleBroken('PRODUCT_NOT_FOUND', 'product was deleted', '/data/relationships/product'));
  await emitEvent(tx, originOf(policy, actor.scope), 'policy.created', policyDocument(policy));
  await tx.commit();
  return policy;
}

export async function retrievePolicy(actor: Actor, id: string): Promise<PolicyRecord> {
  return toRecord<PolicyRecord>(await authorize(actor, 'policies', id, 'read'));
}

export async function updatePolicy(actor: Actor, id: string, changes: PolicyChanges): Promise<PolicyRecord> {
  const item = await authorize(actor, 'policies', id, 'update');
  return updateAndAnnounce<PolicyRecord>(item, { ...rules(changes), updated: now() }, 'policy.updated', policyDocument, actor.scope);
}

export async function deletePolicy(actor: Actor, id: string): Promise<void> {
  const item = await authorize(actor, 'policies', id, 'delete');
  const removed = toRecord<PolicyRecord>(item);
  await removeWithDescendants(item, (tx) => emitEvent(tx, originOf(removed, actor.scope), 'policy.deleted', policyDocument(removed)));
}

const FILTERS: readonly Filter[] = [{ params: ['product'], attribute: 'productId', parent: 'products', slot: SLOTS.policies.product }];

export async function listPolicies(
  actor: Actor,
  filters: FilterValues,
  page: PageRequest,
  forced: Record<string, string> = {},
): Promise<Page<PolicyRecord>> {
  await authorizeAction(actor, 'policies', 'list');
  return filteredList<PolicyRecord>(actor.scope, 'policies', FILTERS, filters, [restriction(actor, 'policies'), forced], page);
}

/** The policy a record belongs to, seen by the rules of policies. */
export const relatedPolicy = (actor: Actor, record: { policyId: string }) => retrievePolicy(actor, record.policyId);
