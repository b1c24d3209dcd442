import { processes } from '#shared/api/processes.ts';
import { processDocumentsFor } from '#shared/domain/processes/document.ts';
import { listProcesses } from '#shared/domain/processes/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(processes.list, async (call) => {
  const page = await listProcesses(call.actor, call.query, call.page);
  return listReply(call, page, await processDocumentsFor(page.records));
});
