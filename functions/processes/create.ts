import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { processDocument } from '#shared/resources/processes/document.ts';
import { processes } from '#shared/resources/processes/operations.ts';
import { createProcess } from '#shared/resources/processes/service.ts';

export const handler = operation(processes.create, async ({ actor, body: { data } }) => {
  const { process, policy } = await createProcess(actor, { ...data.attributes, machineId: data.relationships.machine.data.id });
  return created(processDocument(process, policy));
});
