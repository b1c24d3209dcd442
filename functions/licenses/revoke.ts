import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { revokeLicense } from '#shared/resources/licenses/actions.ts';
import { licenseActions } from '#shared/resources/licenses/operations.ts';

export const handler = operation(licenseActions.revoke, async ({ actor, params }) => {
  await revokeLicense(actor, params.id);
  return noContent();
});
