import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { licenses } from '#shared/resources/licenses/operations.ts';
import { listLicenseMachines } from '#shared/resources/machines/service.ts';
import { machineDocumentsFor } from '#shared/resources/machines/shown.ts';

/** GET /licenses/<id>/machines */
export const handler = operation(licenses.machines, async (call) => {
  const page = await listLicenseMachines(call.actor, call.params.id, call.query, call.page);
  return listReply(call, page, await machineDocumentsFor(page.records));
});
