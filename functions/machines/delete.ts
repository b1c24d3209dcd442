import { machines } from '#shared/api/machines.ts';
import { deleteMachine } from '#shared/domain/machines/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(machines.delete, async ({ actor, params }) => {
  await deleteMachine(actor, params.id);
  return noContent();
});
