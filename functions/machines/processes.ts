import { processes } from '#shared/api/processes.ts';
import { processDocumentsFor } from '#shared/domain/processes/document.ts';
import { listMachineProcesses } from '#shared/domain/processes/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /machines/<id>/processes */
export const handler = operation(processes.ofMachine, async (call) => {
  const page = await listMachineProcesses(call.actor, call.params.id, call.query, call.page);
  return listReply(call, page, await processDocumentsFor(page.records));
});
