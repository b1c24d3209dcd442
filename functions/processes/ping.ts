import { processes } from '#shared/api/processes.ts';
import { processDocument } from '#shared/domain/processes/document.ts';
import { pingProcess } from '#shared/domain/processes/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** POST /processes/<id>/actions/ping */
export const handler = operation(processes.ping, async ({ actor, params }) => {
  const { process, policy } = await pingProcess(actor, params.id);
  return ok(processDocument(process, policy));
});
