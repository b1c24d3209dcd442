import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { componentDocument } from '#shared/resources/components/document.ts';
import { listMachineComponents } from '#shared/resources/components/service.ts';
import { machines } from '#shared/resources/machines/operations.ts';

/** GET /machines/<id>/components */
export const handler = operation(machines.components, async (call) =>
  listReply(call, await listMachineComponents(call.actor, call.params.id, call.query, call.page), componentDocument),
);
