import { machineDocument } from '#shared/domain/machines/document.ts';
import { createMachine } from '#shared/domain/machines/service.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => created(machineDocument(await createMachine(ctx))));
