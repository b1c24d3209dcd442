import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { machines } from '#shared/resources/machines/operations.ts';
import { listMachines } from '#shared/resources/machines/service.ts';
import { machineDocumentsFor } from '#shared/resources/machines/shown.ts';

export const handler = operation(machines.list, async (call) => {
  const page = await listMachines(call.actor, call.query, call.page);
  return listReply(call, page, await machineDocumentsFor(page.records));
});
