import { components } from '#shared/api/components.ts';
import { retrieveComponent } from '#shared/domain/components/service.ts';
import { licenseDocument } from '#shared/domain/licenses/document.ts';
import { relatedLicense } from '#shared/domain/licenses/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /components/<id>/license */
export const handler = operation(components.license, async ({ actor, params }) =>
  ok(licenseDocument(await relatedLicense(actor, await retrieveComponent(actor, params.id)))),
);
