import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { licenseDocument } from '#shared/resources/licenses/document.ts';
import { relatedLicense } from '#shared/resources/licenses/service.ts';
import { machines } from '#shared/resources/machines/operations.ts';
import { retrieveMachine } from '#shared/resources/machines/service.ts';

/** GET /machines/<id>/license */
export const handler = operation(machines.license, async ({ actor, params }) =>
  ok(licenseDocument(await relatedLicense(actor, await retrieveMachine(actor, params.id)))),
);
