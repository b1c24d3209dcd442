import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { processDocumentsFor } from '#shared/resources/processes/document.ts';
import { processes } from '#shared/resources/processes/operations.ts';
import { listProcesses } from '#shared/resources/processes/service.ts';

export const handler = operation(processes.list, async (call) => {
  const page = await listProcesses(call.actor, call.query, call.page);
  return listReply(call, page, await processDocumentsFor(page.records));
});
