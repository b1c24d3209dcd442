import { licenses } from '#shared/api/licenses.ts';
import { licenseDocument } from '#shared/domain/licenses/document.ts';
import { retrieveLicense } from '#shared/domain/licenses/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(licenses.retrieve, async ({ actor, params }) =>
  ok(licenseDocument(await retrieveLicense(actor, params.id))),
);
