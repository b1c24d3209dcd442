/**
 * Handlers of the webhook endpoints' operations, one per declaration of operations.ts under the same key. Each
 * export is a factory: the operation's function calls it once to build its Lambda handler
 * (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { created, noContent, ok } from '../../http/documents.ts';
import { listReply } from '../../http/pagination.ts';
import { operation } from '../../http/pipeline.ts';
import { webhookEndpointDocument } from './document.ts';
import { webhookEndpoints } from './operations.ts';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookEndpoints,
  retrieveWebhookEndpoint,
  updateWebhookEndpoint,
} from './service.ts';

/** The signing secret is shown in this response only. */
export const create = () =>
  operation(webhookEndpoints.create, async ({ actor, body }) =>
    created(webhookEndpointDocument(await createWebhookEndpoint(actor, body.data.attributes), true)),
  );

export const list = () =>
  operation(webhookEndpoints.list, async (call) =>
    listReply(call, await listWebhookEndpoints(call.actor, call.page), (endpoint) => webhookEndpointDocument(endpoint)),
  );

export const retrieve = () =>
  operation(webhookEndpoints.retrieve, async ({ actor, params }) =>
    ok(webhookEndpointDocument(await retrieveWebhookEndpoint(actor, params.id))),
  );

export const update = () =>
  operation(webhookEndpoints.update, async ({ actor, params, body }) =>
    ok(webhookEndpointDocument(await updateWebhookEndpoint(actor, params.id, body.data.attributes ?? {}))),
  );

export const remove = () =>
  operation(webhookEndpoints.remove, async ({ actor, params }) => {
    await deleteWebhookEndpoint(actor, params.id);
    return noContent();
  });
