import { licenseActions } from '#shared/api/license-actions.ts';
import { reinstateLicense } from '#shared/domain/licenses/actions.ts';
import { licenseDocument } from '#shared/domain/licenses/document.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(licenseActions.reinstate, async ({ actor, params }) =>
  ok(licenseDocument(await reinstateLicense(actor, params.id))),
);
