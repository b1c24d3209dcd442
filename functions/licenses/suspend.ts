import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { suspendLicense } from '#shared/resources/licenses/actions.ts';
import { licenseDocument } from '#shared/resources/licenses/document.ts';
import { licenseActions } from '#shared/resources/licenses/operations.ts';

export const handler = operation(licenseActions.suspend, async ({ actor, params }) =>
  ok(licenseDocument(await suspendLicense(actor, params.id))),
);
