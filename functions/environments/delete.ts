import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { environments } from '#shared/resources/environments/operations.ts';
import { deleteEnvironment } from '#shared/resources/environments/service.ts';

export const handler = operation(environments.delete, async ({ actor, params }) => {
  await deleteEnvironment(actor, params.id);
  return noContent();
});
