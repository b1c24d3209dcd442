import { machines } from '#shared/api/machines.ts';
import { licenseDocument } from '#shared/domain/licenses/document.ts';
import { relatedLicense } from '#shared/domain/licenses/service.ts';
import { retrieveMachine } from '#shared/domain/machines/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /machines/<id>/license */
export const handler = operation(machines.license, async ({ actor, params }) =>
  ok(licenseDocument(await relatedLicense(actor, await retrieveMachine(actor, params.id)))),
);
