/**
 * Products (who may do what: shared/resources/products/policy.ts). Removing one removes
 * everything under it.
 */

import { randomUUID } from 'node:crypto';
import type { Actor } from '../../auth/actor.ts';
import { authorize, authorizeAction, restriction } from '../../auth/authorize.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { removeWithDescendants } from '../../licensing/removal.ts';
import { parentIn } from '../../licensing/slots.ts';
import { childItems } from '../../store/cascade.ts';
import { listCollection, type Page, type PageRequest, pageOf } from '../../store/paging.ts';
import { getVisibleItem, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { updateAndAnnounce } from '../changes.ts';
import { type Metadata, maxLength, metadataRule, now } from '../rules.ts';
import { generateTokenFor, type TokenRequest } from '../tokens/generate.ts';
import { retrieveUser } from '../users/service.ts';
import { productDocument } from './document.ts';
import type { ProductRecord } from './entity.ts';

export interface NewProduct {
  name: string;
  url?: string | null;
  metadata?: Metadata;
}

export interface ProductChanges {
  name?: string;
  /** null removes the url. */
  url?: string | null;
  metadata?: Metadata;
}

function rules(attributes: ProductChanges) {
  maxLength('name', attributes.name, 255);
  maxLength('url', attributes.url, 2048);
  metadataRule(attributes.metadata);
}

export async function createProduct(actor: Actor, input: NewProduct): Promise<ProductRecord> {
  await authorizeAction(actor, 'products', 'create');
  rules(input);
  const timestamp = now();
  const product: ProductRecord = {
    type: 'products',
    id: randomUUID(),
    accountId: actor.scope.accountId,
    environmentId: actor.scope.environmentId,
    created: timestamp,
    updated: timestamp,
    name: input.name,
    url: input.url ?? null,
    metadata: input.metadata ?? {},
  };
  const tx = new Transaction();
  tx.create(product);
  await emitEvent(tx, originOf(product, actor.scope), 'product.created', productDocument(product));
  await tx.commit();
  return product;
}

export async function retrieveProduct(actor: Actor, id: string): Promise<ProductRecord> {
  return toRecord('products', await authorize(actor, 'products', id, 'read'));
}

export async function updateProduct(actor: Actor, id: string, changes: ProductChanges): Promise<ProductRecord> {
  const item = await authorize(actor, 'products', id, 'update');
  rules(changes);
  return updateAndAnnounce('products', item, { ...changes, updated: now() }, 'product.updated', productDocument, actor.scope);
}

export async function deleteProduct(actor: Actor, id: string): Promise<void> {
  const item = await authorize(actor, 'products', id, 'delete');
  const removed = toRecord('products', item);
  await removeWithDescendants(item, (tx) => emitEvent(tx, originOf(removed, actor.scope), 'product.deleted', productDocument(removed)));
}

/** The products the bearer reaches: every one, one (its own), or a user's (those of the licenses they own). */
export async function listProducts(actor: Actor, page: PageRequest): Promise<Page<ProductRecord>> {
  await authorizeAction(actor, 'products', 'list');
  const { id, licenseOwnerId } = restriction(actor, 'products');
  if (licenseOwnerId !== undefined) return pageOf(await productsOfUser(actor, licenseOwnerId), page);
  if (id === undefined) return listCollection(actor.scope, { type: 'products' }, page);
  const item = await getVisibleItem(actor.scope, 'products', id);
  return pageOf(item ? [toRecord('products', item)] : [], page);
}

/**
 * The products of the licenses a user owns: read from the user's license collection (what the
 * user owns, not what the account holds), then the distinct products by key.
 */
async function productsOfUser(actor: Actor, userId: string): Promise<ProductRecord[]> {
  const licenses = (
    await Promise.all(
      actor.scope.readable.map((environmentId) =>
        childItems(actor.scope.accountId, environmentId, 'licenses', parentIn('licenses', 'owner', userId)),
      ),
    )
  ).flat();
  const ids = [...new Set(licenses.map((license) => license.productId))];
  const items = await Promise.all(ids.map((id) => getVisibleItem(actor.scope, 'products', id)));
  return items.flatMap((item) => (item ? [toRecord('products', item)] : []));
}

/** GET /users/<id>/products: the products of that user's licenses, for bearers who may see the user. */
export async function listUserProducts(actor: Actor, userId: string, page: PageRequest): Promise<Page<ProductRecord>> {
  const user = await retrieveUser(actor, userId);
  await authorizeAction(actor, 'products', 'list');
  return pageOf(await productsOfUser(actor, user.id), page);
}

/** The product a record of the graph belongs to, seen by the rules of products. */
export const relatedProduct = (actor: Actor, record: { productId: string }) => retrieveProduct(actor, record.productId);

/** POST /products/<id>/tokens: a product token, generated by administrators. */
export async function generateProductToken(actor: Actor, id: string, request: TokenRequest) {
  const item = await authorize(actor, 'products', id, 'tokens.generate', { changes: { permissions: request.permissions } });
  return generateTokenFor(actor, item, 'product-token', request);
}
