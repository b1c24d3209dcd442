/**
 * Handlers of the environments' operations, one per declaration of operations.ts under the same key. Each
 * export is a factory: the operation's function calls it once to build its Lambda handler
 * (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { created, noContent, ok } from '../../http/documents.ts';
import { listReply } from '../../http/pagination.ts';
import { operation } from '../../http/pipeline.ts';
import { tokenDocument } from '../tokens/document.ts';
import { environmentDocument } from './document.ts';
import { environments } from './operations.ts';
import {
  createEnvironment,
  deleteEnvironment,
  generateEnvironmentToken,
  listEnvironments,
  listEnvironmentTokens,
  retrieveEnvironment,
  updateEnvironment,
} from './service.ts';

export const create = () =>
  operation(environments.create, async ({ actor, body }) =>
    created(environmentDocument(await createEnvironment(actor, body.data.attributes))),
  );

export const list = () =>
  operation(environments.list, async (call) => listReply(call, await listEnvironments(call.actor, call.page), environmentDocument));

export const retrieve = () =>
  operation(environments.retrieve, async ({ actor, params }) => ok(environmentDocument(await retrieveEnvironment(actor, params.id))));

/** The path names the environment by id or code; `data.id`, if sent, must be its id. */
export const update = () =>
  operation(environments.update, async ({ actor, params, body: { data } }) =>
    ok(environmentDocument(await updateEnvironment(actor, params.id, data.attributes ?? {}, data.id))),
  );

export const remove = () =>
  operation(environments.remove, async ({ actor, params }) => {
    await deleteEnvironment(actor, params.id);
    return noContent();
  });

/** Environment token generation answers 200, not 201 (docs/rules.md §14.3). */
export const tokensGenerate = () =>
  operation(environments.tokensGenerate, async ({ actor, params, body }) => {
    const { token, value } = await generateEnvironmentToken(actor, params.id, body?.data.attributes ?? {});
    return ok(tokenDocument(token, value));
  });

export const tokensList = () =>
  operation(environments.tokensList, async (call) =>
    listReply(call, await listEnvironmentTokens(call.actor, call.params.id, call.page), tokenDocument),
  );
