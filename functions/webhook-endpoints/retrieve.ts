import { webhookEndpointDocument } from '#shared/domain/webhook-endpoints/document.ts';
import { retrieveWebhookEndpoint } from '#shared/domain/webhook-endpoints/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => ok(webhookEndpointDocument(await retrieveWebhookEndpoint(ctx, ctx.params.id!))));
