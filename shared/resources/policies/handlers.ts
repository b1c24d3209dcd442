/**
 * Handlers of the policies' operations, one per declaration of operations.ts under the same key. Each
 * export is a factory: the operation's function calls it once to build its Lambda handler
 * (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { created, noContent, ok } from '../../http/documents.ts';
import { listReply } from '../../http/pagination.ts';
import { operation } from '../../http/pipeline.ts';
import { retrieveLicense } from '../licenses/service.ts';
import { policyDocument } from './document.ts';
import { policies } from './operations.ts';
import { createPolicy, deletePolicy, listPolicies, relatedPolicy, retrievePolicy, updatePolicy } from './service.ts';

export const create = () =>
  operation(policies.create, async ({ actor, body: { data } }) =>
    created(policyDocument(await createPolicy(actor, { ...data.attributes, productId: data.relationships.product.data.id }))),
  );

export const list = () =>
  operation(policies.list, async (call) => listReply(call, await listPolicies(call.actor, call.query, call.page), policyDocument));

export const retrieve = () =>
  operation(policies.retrieve, async ({ actor, params }) => ok(policyDocument(await retrievePolicy(actor, params.id))));

export const update = () =>
  operation(policies.update, async ({ actor, params, body }) =>
    ok(policyDocument(await updatePolicy(actor, params.id, body.data.attributes ?? {}))),
  );

export const remove = () =>
  operation(policies.remove, async ({ actor, params }) => {
    await deletePolicy(actor, params.id);
    return noContent();
  });

/** GET /licenses/<id>/policy */
export const ofLicense = () =>
  operation(policies.ofLicense, async ({ actor, params }) =>
    ok(policyDocument(await relatedPolicy(actor, await retrieveLicense(actor, params.id)))),
  );
