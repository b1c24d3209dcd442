import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { machines } from '#shared/resources/machines/operations.ts';
import { deleteMachine } from '#shared/resources/machines/service.ts';

export const handler = operation(machines.delete, async ({ actor, params }) => {
  await deleteMachine(actor, params.id);
  return noContent();
});
