/**
 * Handlers of the pooled keys' operations, one per declaration of operations.ts under the same
 * key. Each export is a factory: the operation's function calls it once to build its Lambda
 * handler (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { created, noContent, ok } from '../../http/documents.ts';
import { listReply } from '../../http/pagination.ts';
import { operation } from '../../http/pipeline.ts';
import { keyDocument } from './document.ts';
import { keys } from './operations.ts';
import { createKey, deleteKey, listKeys, listPool, popKey, retrieveKey, updateKey } from './service.ts';

export const create = () =>
  operation(keys.create, async ({ actor, body: { data } }) =>
    created(keyDocument(await createKey(actor, { key: data.attributes.key, policyId: data.relationships.policy.data.id }))),
  );

export const list = () =>
  operation(keys.list, async (call) => listReply(call, await listKeys(call.actor, call.query, call.page), keyDocument));

export const retrieve = () => operation(keys.retrieve, async ({ actor, params }) => ok(keyDocument(await retrieveKey(actor, params.id))));

export const update = () =>
  operation(keys.update, async ({ actor, params, body }) => ok(keyDocument(await updateKey(actor, params.id, body.data.attributes ?? {}))));

export const remove = () =>
  operation(keys.remove, async ({ actor, params }) => {
    await deleteKey(actor, params.id);
    return noContent();
  });

export const pool = () =>
  operation(keys.pool, async (call) => listReply(call, await listPool(call.actor, call.params.id, call.page), keyDocument));

export const pop = () => operation(keys.pop, async ({ actor, params }) => ok(keyDocument(await popKey(actor, params.id))));
