import { licenses } from '#shared/api/licenses.ts';
import { listLicenseMachines } from '#shared/domain/machines/service.ts';
import { machineDocumentsFor } from '#shared/domain/machines/shown.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /licenses/<id>/machines */
export const handler = operation(licenses.machines, async (call) => {
  const page = await listLicenseMachines(call.actor, call.params.id, call.query, call.page);
  return listReply(call, page, await machineDocumentsFor(page.records));
});
