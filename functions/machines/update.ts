import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { machineDocument } from '#shared/resources/machines/document.ts';
import { machines } from '#shared/resources/machines/operations.ts';
import { updateMachine } from '#shared/resources/machines/service.ts';

export const handler = operation(machines.update, async ({ actor, params, body: { data } }) => {
  const { machine, policy } = await updateMachine(actor, params.id, data.attributes ?? {}, data.id);
  return ok(machineDocument(machine, policy));
});
