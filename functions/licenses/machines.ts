import { licenses } from '#shared/api/licenses.ts';
import { machineDocument } from '#shared/domain/machines/document.ts';
import { listLicenseMachines } from '#shared/domain/machines/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /licenses/<id>/machines */
export const handler = operation(licenses.machines, async (call) =>
  listReply(call, await listLicenseMachines(call.actor, call.params.id, call.query, call.page), machineDocument),
);
