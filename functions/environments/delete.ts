import { environments } from '#shared/api/environments.ts';
import { deleteEnvironment } from '#shared/domain/environments/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(environments.delete, async ({ actor, params }) => {
  await deleteEnvironment(actor, params.id);
  return noContent();
});
