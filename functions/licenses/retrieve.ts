import { licenseDocument } from '#shared/domain/licenses/document.ts';
import { retrieveLicense } from '#shared/domain/licenses/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => ok(licenseDocument(await retrieveLicense(ctx, ctx.params.id!))));
