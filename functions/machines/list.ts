import { machines } from '#shared/api/machines.ts';
import { machineDocument } from '#shared/domain/machines/document.ts';
import { listMachines } from '#shared/domain/machines/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(machines.list, async (call) =>
  listReply(call, await listMachines(call.actor, call.query, call.page), machineDocument),
);
