import { webhookEndpointDocument } from '#shared/domain/webhook-endpoints/document.ts';
import { updateWebhookEndpoint } from '#shared/domain/webhook-endpoints/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => ok(webhookEndpointDocument(await updateWebhookEndpoint(ctx, ctx.params.id!))));
