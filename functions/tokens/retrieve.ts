import { tokenDocument } from '#shared/domain/tokens/document.ts';
import { retrieveToken } from '#shared/domain/tokens/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => ok(tokenDocument(await retrieveToken(ctx, ctx.params.id!))));
