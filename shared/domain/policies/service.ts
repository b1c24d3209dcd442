/**
 * Policies, under a product: administrators and the product's bearer manage them; licensees
 * read the policies of their licenses.
 */
import { emitEvent, originOf } from '../../events/emit.ts';
import { updateAndAnnounce } from '../changes.ts';
import { policyDocument } from './document.ts';
import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { nonBlank, parseBody, relationship, resourceDocument, updateDocument } from '../../http/body.ts';
import { ruleBroken } from '../../errors.ts';
import type { Query } from '../../http/query.ts';
import type { Page, PageRequest } from '../../store/paging.ts';
import { recordKeyOf, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { attributePointer, maxLength, metadataRule, metadataSchema, now, oneOf } from '../rules.ts';
import { authorize, authorizeAction, restriction } from '../../auth/authorize.ts';
import type { Actor } from '../../auth/actor.ts';
import { relatedItem, relationshipId, removeWithDescendants } from '../licensing/graph.ts';
import { SLOTS } from '../licensing/slots.ts';
import { filteredList, type Filter } from '../licensing/lists.ts';
import type { ProductRecord } from '../products/product.ts';
import { MATCHING_STRATEGIES, UNIQUENESS_STRATEGIES, type PolicyRecord } from './policy.ts';

const metadata = metadataSchema();

const attributes = {
  componentUniquenessStrategy: z.optional(z.string()),
  componentMatchingStrategy: z.optional(z.string()),
  requireComponentsScope: z.optional(z.boolean()),
  protected: z.optional(z.boolean()),
  maxMachines: z.nullish(z.int()),
  metadata: z.optional(metadata),
};

const createBody = resourceDocument('policies', { name: nonBlank(), ...attributes }, { product: relationship('products') });
const updateBody = updateDocument('policies', { name: z.optional(nonBlank()), ...attributes });

type Attributes = NonNullable<z.infer<typeof updateBody>['data']['attributes']>;

function rules(input: Attributes): Partial<PolicyRecord> {
  maxLength('name', input.name, 255);
  metadataRule(input.metadata);
  if (input.maxMachines != null && input.maxMachines < 1) {
    throw ruleBroken('MAX_MACHINES_INVALID', 'maxMachines must be at least 1 (or null for no limit)', attributePointer('maxMachines'));
  }
  const checked: Record<string, unknown> = {
    ...input,
    componentUniquenessStrategy: oneOf('componentUniquenessStrategy', input.componentUniquenessStrategy, UNIQUENESS_STRATEGIES),
    componentMatchingStrategy: oneOf('componentMatchingStrategy', input.componentMatchingStrategy, MATCHING_STRATEGIES),
  };
  for (const [name, value] of Object.entries(checked)) if (value === undefined) delete checked[name];
  return checked as Partial<PolicyRecord>;
}

export async function createPolicy(ctx: Actor): Promise<PolicyRecord> {
  await authorizeAction(ctx, 'policies', 'create');
  const { data } = parseBody(ctx.body, createBody);
  const checked = rules(data.attributes);
  const product = toRecord<ProductRecord>(await relatedItem(ctx, 'products', relationshipId(data, 'product')!, 'product'));
  const timestamp = now();
  const policy: PolicyRecord = {
    type: 'policies',
    id: randomUUID(),
    accountId: ctx.scope.accountId,
    environmentId: ctx.scope.environmentId,
    created: timestamp,
    updated: timestamp,
    productId: product.id,
    name: data.attributes.name,
    componentUniquenessStrategy: checked.componentUniquenessStrategy ?? 'UNIQUE_PER_MACHINE',
    componentMatchingStrategy: checked.componentMatchingStrategy ?? 'MATCH_ANY',
    requireComponentsScope: checked.requireComponentsScope ?? false,
    protected: checked.protected ?? false,
    maxMachines: checked.maxMachines ?? null,
    metadata: checked.metadata ?? {},
  };
  const tx = new Transaction();
  tx.create(policy, { parents: [{ type: 'products', id: product.id }] });
  tx.requireExists(recordKeyOf(product), ruleBroken('PRODUCT_NOT_FOUND', 'product was deleted', '/data/relationships/product'));
  await emitEvent(tx, originOf(policy, ctx.scope), 'policy.created', policyDocument(policy));
  await tx.commit();
  return policy;
}

export async function retrievePolicy(ctx: Actor, id: string): Promise<PolicyRecord> {
  return toRecord<PolicyRecord>(await authorize(ctx, 'policies', id, 'read'));
}

export async function updatePolicy(ctx: Actor, id: string): Promise<PolicyRecord> {
  const item = await authorize(ctx, 'policies', id, 'update');
  const { attributes = {} } = parseBody(ctx.body, updateBody, id).data;
  const changes: Record<string, unknown> = { ...rules(attributes), updated: now() };
  return updateAndAnnounce<PolicyRecord>(item, changes, 'policy.updated', policyDocument, ctx.scope);
}

export async function deletePolicy(ctx: Actor, id: string): Promise<void> {
  const item = await authorize(ctx, 'policies', id, 'delete');
  const removed = toRecord<PolicyRecord>(item);
  await removeWithDescendants(item, (tx) => emitEvent(tx, originOf(removed, ctx.scope), 'policy.deleted', policyDocument(removed)));
}

const FILTERS: readonly Filter[] = [{ params: ['product'], attribute: 'productId', parent: 'products', slot: SLOTS.policies.product }];

export async function listPolicies(ctx: Actor, page: PageRequest, query: Query = ctx.query): Promise<Page<PolicyRecord>> {
  await authorizeAction(ctx, 'policies', 'list');
  return filteredList<PolicyRecord>(ctx.scope, 'policies', FILTERS, query, [restriction(ctx, 'policies')], page);
}

/** The policy a record belongs to, seen by the rules of policies. */
export const relatedPolicy = (ctx: Actor, record: { policyId: string }) => retrievePolicy(ctx, record.policyId);
