import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { licenseDocument } from '#shared/resources/licenses/document.ts';
import { licenses } from '#shared/resources/licenses/operations.ts';
import { retrieveLicense } from '#shared/resources/licenses/service.ts';

export const handler = operation(licenses.retrieve, async ({ actor, params }) =>
  ok(licenseDocument(await retrieveLicense(actor, params.id))),
);
