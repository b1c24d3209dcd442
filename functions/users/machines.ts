import { machines } from '#shared/api/machines.ts';
import { listUserMachines } from '#shared/domain/machines/service.ts';
import { machineDocumentsFor } from '#shared/domain/machines/shown.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /users/<id>/machines */
export const handler = operation(machines.ofUser, async (call) => {
  const page = await listUserMachines(call.actor, call.params.id, call.query, call.page);
  return listReply(call, page, await machineDocumentsFor(page.records));
});
