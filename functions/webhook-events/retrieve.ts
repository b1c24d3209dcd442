import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { shownWebhookEvent } from '#shared/resources/webhook-events/document.ts';
import { webhookEvents } from '#shared/resources/webhook-events/operations.ts';
import { retrieveWebhookEvent } from '#shared/resources/webhook-events/service.ts';

export const handler = operation(webhookEvents.retrieve, async ({ actor, params }) =>
  ok(await shownWebhookEvent(await retrieveWebhookEvent(actor, params.id))),
);
