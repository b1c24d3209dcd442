import { machines } from '#shared/api/machines.ts';
import { componentDocument } from '#shared/domain/components/document.ts';
import { listMachineComponents } from '#shared/domain/components/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /machines/<id>/components */
export const handler = operation(machines.components, async (call) =>
  listReply(call, await listMachineComponents(call.actor, call.params.id, call.query, call.page), componentDocument),
);
