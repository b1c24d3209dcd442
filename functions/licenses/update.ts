import { licenseDocument } from '#shared/domain/licenses/document.ts';
import { updateLicense } from '#shared/domain/licenses/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => ok(licenseDocument(await updateLicense(ctx, ctx.params.id!))));
