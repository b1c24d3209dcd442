import { processes } from '#shared/api/processes.ts';
import { deleteProcess } from '#shared/domain/processes/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(processes.delete, async ({ actor, params }) => {
  await deleteProcess(actor, params.id);
  return noContent();
});
