import { checkOut, checkOutParameters, fileDocumentReply } from '#shared/api/check-out.ts';
import { checkOutMachine } from '#shared/domain/check-out/service.ts';
import { operation } from '#shared/http/pipeline.ts';

/** POST /machines/<id>/actions/check-out: a machine file, in a `machine-files` document. */
export const handler = operation(checkOut.machine, async ({ actor, params, query, body }) =>
  fileDocumentReply(await checkOutMachine(actor, params.id, checkOutParameters(query, body))),
);
