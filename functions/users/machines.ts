import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { machines } from '#shared/resources/machines/operations.ts';
import { listUserMachines } from '#shared/resources/machines/service.ts';
import { machineDocumentsFor } from '#shared/resources/machines/shown.ts';

/** GET /users/<id>/machines */
export const handler = operation(machines.ofUser, async (call) => {
  const page = await listUserMachines(call.actor, call.params.id, call.query, call.page);
  return listReply(call, page, await machineDocumentsFor(page.records));
});
