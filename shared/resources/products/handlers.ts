/**
 * Handlers of the products' operations, one per declaration of operations.ts under the same key. Each
 * export is a factory: the operation's function calls it once to build its Lambda handler
 * (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { created, noContent, ok } from '../../http/documents.ts';
import { listReply } from '../../http/pagination.ts';
import { operation } from '../../http/pipeline.ts';
import { retrieveLicense } from '../licenses/service.ts';
import { tokenDocument } from '../tokens/document.ts';
import { productDocument } from './document.ts';
import { products } from './operations.ts';
import {
  createProduct,
  deleteProduct,
  generateProductToken,
  listProducts,
  listUserProducts,
  relatedProduct,
  retrieveProduct,
  updateProduct,
} from './service.ts';

export const create = () =>
  operation(products.create, async ({ actor, body }) => created(productDocument(await createProduct(actor, body.data.attributes))));

export const list = () =>
  operation(products.list, async (call) => listReply(call, await listProducts(call.actor, call.page), productDocument));

export const retrieve = () =>
  operation(products.retrieve, async ({ actor, params }) => ok(productDocument(await retrieveProduct(actor, params.id))));

export const update = () =>
  operation(products.update, async ({ actor, params, body }) =>
    ok(productDocument(await updateProduct(actor, params.id, body.data.attributes ?? {}))),
  );

export const remove = () =>
  operation(products.remove, async ({ actor, params }) => {
    await deleteProduct(actor, params.id);
    return noContent();
  });

/** A product token: 200, like environment tokens; the value is shown only here. */
export const tokensGenerate = () =>
  operation(products.tokensGenerate, async ({ actor, params, body }) => {
    const { token, value } = await generateProductToken(actor, params.id, body?.data.attributes ?? {});
    return ok(tokenDocument(token, value));
  });

/** GET /users/<id>/products */
export const ofUser = () =>
  operation(products.ofUser, async (call) =>
    listReply(call, await listUserProducts(call.actor, call.params.id, call.page), productDocument),
  );

/** GET /licenses/<id>/product */
export const ofLicense = () =>
  operation(products.ofLicense, async ({ actor, params }) =>
    ok(productDocument(await relatedProduct(actor, await retrieveLicense(actor, params.id)))),
  );
