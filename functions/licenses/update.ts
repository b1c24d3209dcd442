import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { licenseDocument } from '#shared/resources/licenses/document.ts';
import { licenses } from '#shared/resources/licenses/operations.ts';
import { updateLicense } from '#shared/resources/licenses/service.ts';

export const handler = operation(licenses.update, async ({ actor, params, body: { data } }) =>
  ok(licenseDocument(await updateLicense(actor, params.id, data.attributes ?? {}, data.id))),
);
