import { licenses } from '#shared/api/licenses.ts';
import { licenseDocument } from '#shared/domain/licenses/document.ts';
import { updateLicense } from '#shared/domain/licenses/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(licenses.update, async ({ actor, params, body: { data } }) =>
  ok(licenseDocument(await updateLicense(actor, params.id, data.attributes ?? {}, data.id))),
);
