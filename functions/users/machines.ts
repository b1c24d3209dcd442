import { machines } from '#shared/api/machines.ts';
import { machineDocument } from '#shared/domain/machines/document.ts';
import { listUserMachines } from '#shared/domain/machines/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /users/<id>/machines */
export const handler = operation(machines.ofUser, async (call) =>
  listReply(call, await listUserMachines(call.actor, call.params.id, call.query, call.page), machineDocument),
);
