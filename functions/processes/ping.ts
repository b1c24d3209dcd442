import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { processDocument } from '#shared/resources/processes/document.ts';
import { processes } from '#shared/resources/processes/operations.ts';
import { pingProcess } from '#shared/resources/processes/service.ts';

/** POST /processes/<id>/actions/ping */
export const handler = operation(processes.ping, async ({ actor, params }) => {
  const { process, policy } = await pingProcess(actor, params.id);
  return ok(processDocument(process, policy));
});
