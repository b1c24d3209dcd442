import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { processDocumentsFor } from '#shared/resources/processes/document.ts';
import { processes } from '#shared/resources/processes/operations.ts';
import { listMachineProcesses } from '#shared/resources/processes/service.ts';

/** GET /machines/<id>/processes */
export const handler = operation(processes.ofMachine, async (call) => {
  const page = await listMachineProcesses(call.actor, call.params.id, call.query, call.page);
  return listReply(call, page, await processDocumentsFor(page.records));
});
