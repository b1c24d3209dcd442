import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { processes } from '#shared/resources/processes/operations.ts';
import { deleteProcess } from '#shared/resources/processes/service.ts';

export const handler = operation(processes.delete, async ({ actor, params }) => {
  await deleteProcess(actor, params.id);
  return noContent();
});
