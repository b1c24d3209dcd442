import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { webhookEventDocument } from '#shared/resources/webhook-events/document.ts';
import { webhookEvents } from '#shared/resources/webhook-events/operations.ts';
import { retryWebhookEvent } from '#shared/resources/webhook-events/service.ts';

/**
 * 201 with the new event (docs/rules.md §26.6); the original is left as it was. A retry is made only
 * while its endpoint exists (its transaction requires it), so its document links to it.
 */
export const handler = operation(webhookEvents.retry, async ({ actor, params }) =>
  created(webhookEventDocument(await retryWebhookEvent(actor, params.id))),
);
