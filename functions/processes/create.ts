import { processes } from '#shared/api/processes.ts';
import { processDocument } from '#shared/domain/processes/document.ts';
import { createProcess } from '#shared/domain/processes/service.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(processes.create, async ({ actor, body: { data } }) => {
  const { process, policy } = await createProcess(actor, { ...data.attributes, machineId: data.relationships.machine.data.id });
  return created(processDocument(process, policy));
});
