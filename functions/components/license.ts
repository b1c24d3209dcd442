import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { components } from '#shared/resources/components/operations.ts';
import { retrieveComponent } from '#shared/resources/components/service.ts';
import { licenseDocument } from '#shared/resources/licenses/document.ts';
import { relatedLicense } from '#shared/resources/licenses/service.ts';

/** GET /components/<id>/license */
export const handler = operation(components.license, async ({ actor, params }) =>
  ok(licenseDocument(await relatedLicense(actor, await retrieveComponent(actor, params.id)))),
);
