import { licenseDocument } from '#shared/domain/licenses/document.ts';
import { createLicense } from '#shared/domain/licenses/service.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => created(licenseDocument(await createLicense(ctx))));
