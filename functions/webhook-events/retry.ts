import { webhookEvents } from '#shared/api/webhooks.ts';
import { webhookEventDocument } from '#shared/domain/webhook-events/document.ts';
import { retryWebhookEvent } from '#shared/domain/webhook-events/service.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/**
 * 201 with the new event (docs/rules.md §5); the original is left as it was. A retry is made only
 * while its endpoint exists (its transaction requires it), so its document links to it.
 */
export const handler = operation(webhookEvents.retry, async ({ actor, params }) =>
  created(webhookEventDocument(await retryWebhookEvent(actor, params.id))),
);
