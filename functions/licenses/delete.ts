import { licenses } from '#shared/api/licenses.ts';
import { deleteLicense } from '#shared/domain/licenses/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(licenses.delete, async ({ actor, params }) => {
  await deleteLicense(actor, params.id);
  return noContent();
});
