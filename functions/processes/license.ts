import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { licenseDocument } from '#shared/resources/licenses/document.ts';
import { relatedLicense } from '#shared/resources/licenses/service.ts';
import { processes } from '#shared/resources/processes/operations.ts';
import { retrieveProcess } from '#shared/resources/processes/service.ts';

/** GET /processes/<id>/license */
export const handler = operation(processes.license, async ({ actor, params }) =>
  ok(licenseDocument(await relatedLicense(actor, await retrieveProcess(actor, params.id)))),
);
