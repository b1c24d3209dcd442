import { webhookEvents } from '#shared/api/webhooks.ts';
import { shownWebhookEvent } from '#shared/domain/webhook-events/document.ts';
import { retrieveWebhookEvent } from '#shared/domain/webhook-events/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(webhookEvents.retrieve, async ({ actor, params }) =>
  ok(await shownWebhookEvent(await retrieveWebhookEvent(actor, params.id))),
);
