/**
 * Products (who may do what: shared/auth/policies/licensing.ts). Removing one removes
 * everything under it.
 */
import { emitEvent, originOf } from '../../events/emit.ts';
import { updateAndAnnounce } from '../changes.ts';
import { productDocument } from './document.ts';
import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { authorize, authorizeAction, restriction } from '../../auth/authorize.ts';
import type { Actor } from '../../auth/actor.ts';
import { nonBlank, parseBody, resourceDocument, updateDocument } from '../../http/body.ts';
import { childItems } from '../../store/cascade.ts';
import { listCollection, pageOf, type Page, type PageRequest } from '../../store/paging.ts';
import { getVisibleItem, toRecord, type Item } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { maxLength, metadataRule, metadataSchema, now } from '../rules.ts';
import { retrieveUser } from '../users/service.ts';
import { removeWithDescendants } from '../licensing/graph.ts';
import { SLOTS } from '../licensing/slots.ts';
import { generateTokenFor, type TokenRequest } from '../tokens/generate.ts';
import type { ProductRecord } from './product.ts';

const metadata = metadataSchema();

const createBody = resourceDocument('products', {
  name: nonBlank(),
  url: z.nullish(z.string()),
  metadata: z.optional(metadata),
});

const updateBody = updateDocument('products', {
  name: z.optional(nonBlank()),
  url: z.nullish(z.string()),
  metadata: z.optional(metadata),
});

function rules(attributes: { name?: string; url?: string | null; metadata?: Record<string, unknown> }) {
  maxLength('name', attributes.name, 255);
  maxLength('url', attributes.url, 2048);
  metadataRule(attributes.metadata);
}

export async function createProduct(ctx: Actor): Promise<ProductRecord> {
  await authorizeAction(ctx, 'products', 'create');
  const { attributes } = parseBody(ctx.body, createBody).data;
  rules(attributes);
  const timestamp = now();
  const product: ProductRecord = {
    type: 'products',
    id: randomUUID(),
    accountId: ctx.scope.accountId,
    environmentId: ctx.scope.environmentId,
    created: timestamp,
    updated: timestamp,
    name: attributes.name,
    url: attributes.url ?? null,
    metadata: attributes.metadata ?? {},
  };
  const tx = new Transaction();
  tx.create(product);
  await emitEvent(tx, originOf(product, ctx.scope), 'product.created', productDocument(product));
  await tx.commit();
  return product;
}

export async function retrieveProduct(ctx: Actor, id: string): Promise<ProductRecord> {
  return toRecord<ProductRecord>(await authorize(ctx, 'products', id, 'read'));
}

export async function updateProduct(ctx: Actor, id: string): Promise<ProductRecord> {
  const item = await authorize(ctx, 'products', id, 'update');
  const { attributes = {} } = parseBody(ctx.body, updateBody, id).data;
  rules(attributes);
  const changes: Record<string, unknown> = { ...attributes, updated: now() };
  return updateAndAnnounce<ProductRecord>(item, changes, 'product.updated', productDocument, ctx.scope);
}

export async function deleteProduct(ctx: Actor, id: string): Promise<void> {
  const item = await authorize(ctx, 'products', id, 'delete');
  const removed = toRecord<ProductRecord>(item);
  await removeWithDescendants(item, (tx) => emitEvent(tx, originOf(removed, ctx.scope), 'product.deleted', productDocument(removed)));
}

/** The products the bearer reaches: every one, one (its own), or a user's (those of the licenses they own). */
export async function listProducts(ctx: Actor, page: PageRequest): Promise<Page<ProductRecord>> {
  await authorizeAction(ctx, 'products', 'list');
  const { id, licenseOwnerId } = restriction(ctx, 'products');
  if (licenseOwnerId !== undefined) return pageOf(await productsOfUser(ctx, licenseOwnerId), page);
  if (id === undefined) return listCollection<ProductRecord>(ctx.scope, { type: 'products' }, page);
  const item = await getVisibleItem(ctx.scope, 'products', id);
  return pageOf(item ? [toRecord<ProductRecord>(item)] : [], page);
}

/**
 * The products of the licenses a user owns: read from the user's license collection (what the
 * user owns, not what the account holds), then the distinct products by key.
 */
async function productsOfUser(ctx: Actor, userId: string): Promise<ProductRecord[]> {
  const licenses = (
    await Promise.all(
      ctx.scope.readable.map((environmentId) =>
        childItems(ctx.scope.accountId, environmentId, 'licenses', { type: 'users', id: userId }, SLOTS.licenses.owner),
      ),
    )
  ).flat();
  const ids = [...new Set(licenses.map((license) => license.productId as string))];
  const items = await Promise.all(ids.map((id) => getVisibleItem(ctx.scope, 'products', id)));
  return items.filter((item): item is Item => item !== undefined).map((item) => toRecord<ProductRecord>(item));
}

/** GET /users/<id>/products: the products of that user's licenses, for bearers who may see the user. */
export async function listUserProducts(ctx: Actor, userId: string, page: PageRequest): Promise<Page<ProductRecord>> {
  const user = await retrieveUser(ctx, userId);
  await authorizeAction(ctx, 'products', 'list');
  return pageOf(await productsOfUser(ctx, user.id), page);
}

/** The product a record of the graph belongs to, seen by the rules of products. */
export const relatedProduct = (ctx: Actor, record: { productId: string }) => retrieveProduct(ctx, record.productId);

/** POST /products/<id>/tokens: a product token, generated by administrators. */
export async function generateProductToken(ctx: Actor, id: string, request: TokenRequest) {
  const item = await authorize(ctx, 'products', id, 'tokens.generate');
  return generateTokenFor(ctx, item, 'product-token', request);
}
