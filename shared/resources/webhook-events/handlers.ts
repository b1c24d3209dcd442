/**
 * Handlers of the webhook events' operations, one per declaration of operations.ts under the same key. Each
 * export is a factory: the operation's function calls it once to build its Lambda handler
 * (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { created, noContent, ok } from '../../http/documents.ts';
import { listReply } from '../../http/pagination.ts';
import { operation } from '../../http/pipeline.ts';
import { shownWebhookEvent, webhookEventDocument, webhookEventDocumentsFor } from './document.ts';
import { webhookEvents } from './operations.ts';
import { deleteWebhookEvent, listWebhookEvents, retrieveWebhookEvent, retryWebhookEvent } from './service.ts';

/** GET /webhook-events, filtered by `events[]=<kind>` (several allowed) or `endpoint=<id>`. */
export const list = () =>
  operation(webhookEvents.list, async (call) => {
    const page = await listWebhookEvents(call.actor, call.query, call.page);
    return listReply(call, page, await webhookEventDocumentsFor(page.records));
  });

export const retrieve = () =>
  operation(webhookEvents.retrieve, async ({ actor, params }) => ok(await shownWebhookEvent(await retrieveWebhookEvent(actor, params.id))));

export const remove = () =>
  operation(webhookEvents.remove, async ({ actor, params }) => {
    await deleteWebhookEvent(actor, params.id);
    return noContent();
  });

/**
 * 201 with the new event (docs/rules.md §26.6); the original is left as it was. A retry is made only
 * while its endpoint exists (its transaction requires it), so its document links to it.
 */
export const retry = () =>
  operation(webhookEvents.retry, async ({ actor, params }) => created(webhookEventDocument(await retryWebhookEvent(actor, params.id))));
