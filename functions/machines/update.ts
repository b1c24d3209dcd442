import { machines } from '#shared/api/machines.ts';
import { machineDocument } from '#shared/domain/machines/document.ts';
import { updateMachine } from '#shared/domain/machines/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(machines.update, async ({ actor, params, body: { data } }) => {
  const { machine, policy } = await updateMachine(actor, params.id, data.attributes ?? {}, data.id);
  return ok(machineDocument(machine, policy));
});
