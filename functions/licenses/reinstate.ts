import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { reinstateLicense } from '#shared/resources/licenses/actions.ts';
import { licenseDocument } from '#shared/resources/licenses/document.ts';
import { licenseActions } from '#shared/resources/licenses/operations.ts';

export const handler = operation(licenseActions.reinstate, async ({ actor, params }) =>
  ok(licenseDocument(await reinstateLicense(actor, params.id))),
);
