import { machines } from '#shared/api/machines.ts';
import { listMachines } from '#shared/domain/machines/service.ts';
import { machineDocumentsFor } from '#shared/domain/machines/shown.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(machines.list, async (call) => {
  const page = await listMachines(call.actor, call.query, call.page);
  return listReply(call, page, await machineDocumentsFor(page.records));
});
