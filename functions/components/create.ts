import { componentDocument } from '#shared/domain/components/document.ts';
import { createComponent } from '#shared/domain/components/service.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => created(componentDocument(await createComponent(ctx))));
