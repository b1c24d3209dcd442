import { webhookEventDocument } from '#shared/domain/webhook-events/document.ts';
import { retrieveWebhookEvent } from '#shared/domain/webhook-events/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => ok(webhookEventDocument(await retrieveWebhookEvent(ctx, ctx.params.id!))));
