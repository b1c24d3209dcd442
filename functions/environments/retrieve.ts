import { environmentDocument } from '#shared/domain/environments/document.ts';
import { retrieveEnvironment } from '#shared/domain/environments/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => ok(environmentDocument(await retrieveEnvironment(ctx, ctx.params.id!))));
