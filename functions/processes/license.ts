import { processes } from '#shared/api/processes.ts';
import { licenseDocument } from '#shared/domain/licenses/document.ts';
import { relatedLicense } from '#shared/domain/licenses/service.ts';
import { retrieveProcess } from '#shared/domain/processes/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /processes/<id>/license */
export const handler = operation(processes.license, async ({ actor, params }) =>
  ok(licenseDocument(await relatedLicense(actor, await retrieveProcess(actor, params.id)))),
);
