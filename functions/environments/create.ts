import { environmentDocument } from '#shared/domain/environments/document.ts';
import { createEnvironment } from '#shared/domain/environments/service.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => created(environmentDocument(await createEnvironment(ctx))));
