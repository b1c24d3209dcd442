import { licenseActions } from '#shared/api/license-actions.ts';
import { revokeLicense } from '#shared/domain/licenses/actions.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(licenseActions.revoke, async ({ actor, params }) => {
  await revokeLicense(actor, params.id);
  return noContent();
});
