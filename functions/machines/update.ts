import { machineDocument } from '#shared/domain/machines/document.ts';
import { updateMachine } from '#shared/domain/machines/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => ok(machineDocument(await updateMachine(ctx, ctx.params.id!))));
