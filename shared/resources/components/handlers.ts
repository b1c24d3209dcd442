/**
 * Handlers of the components' operations, one per declaration of operations.ts under the same key. Each
 * export is a factory: the operation's function calls it once to build its Lambda handler
 * (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { created, noContent, ok } from '../../http/documents.ts';
import { listReply } from '../../http/pagination.ts';
import { operation } from '../../http/pipeline.ts';
import { relatedLicense } from '../licenses/service.ts';
import { shownLicense } from '../licenses/shown.ts';
import { relatedMachine } from '../machines/service.ts';
import { shownMachine } from '../machines/shown.ts';
import { productDocument } from '../products/document.ts';
import { relatedProduct } from '../products/service.ts';
import { componentDocument } from './document.ts';
import { components } from './operations.ts';
import { createComponent, deleteComponent, listComponents, retrieveComponent, updateComponent } from './service.ts';

export const create = () =>
  operation(components.create, async ({ actor, body: { data } }) =>
    created(componentDocument(await createComponent(actor, { ...data.attributes, machineId: data.relationships.machine.data.id }))),
  );

export const list = () =>
  operation(components.list, async (call) => listReply(call, await listComponents(call.actor, call.query, call.page), componentDocument));

export const retrieve = () =>
  operation(components.retrieve, async ({ actor, params }) => ok(componentDocument(await retrieveComponent(actor, params.id))));

export const update = () =>
  operation(components.update, async ({ actor, params, body }) =>
    ok(componentDocument(await updateComponent(actor, params.id, body.data.attributes ?? {}))),
  );

export const remove = () =>
  operation(components.remove, async ({ actor, params }) => {
    await deleteComponent(actor, params.id);
    return noContent();
  });

/** GET /components/<id>/machine */
export const machine = () =>
  operation(components.machine, async ({ actor, params }) =>
    ok(await shownMachine(await relatedMachine(actor, await retrieveComponent(actor, params.id)))),
  );

/** GET /components/<id>/license */
export const license = () =>
  operation(components.license, async ({ actor, params }) =>
    ok(await shownLicense(await relatedLicense(actor, await retrieveComponent(actor, params.id)))),
  );

/** GET /components/<id>/product */
export const product = () =>
  operation(components.product, async ({ actor, params }) =>
    ok(productDocument(await relatedProduct(actor, await retrieveComponent(actor, params.id)))),
  );
