import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { licenses } from '#shared/resources/licenses/operations.ts';
import { deleteLicense } from '#shared/resources/licenses/service.ts';

export const handler = operation(licenses.delete, async ({ actor, params }) => {
  await deleteLicense(actor, params.id);
  return noContent();
});
