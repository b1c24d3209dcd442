import { componentDocument } from '#shared/domain/components/document.ts';
import { updateComponent } from '#shared/domain/components/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => ok(componentDocument(await updateComponent(ctx, ctx.params.id!))));
