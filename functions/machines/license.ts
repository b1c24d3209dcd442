import { retrieveMachine } from '#shared/domain/machines/service.ts';
import { licenseDocument } from '#shared/domain/licenses/document.ts';
import { relatedLicense } from '#shared/domain/licenses/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /machines/<id>/license */
export const handler = operation('bearer', async (ctx) => ok(licenseDocument(await relatedLicense(ctx, await retrieveMachine(ctx, ctx.params.id!)))));
