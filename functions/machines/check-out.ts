import { operation } from '#shared/http/pipeline.ts';
import { checkOut, checkOutParameters, fileDocumentReply } from '#shared/resources/check-out/operations.ts';
import { checkOutMachine } from '#shared/resources/check-out/service.ts';

/** POST /machines/<id>/actions/check-out: a machine file, in a `machine-files` document. */
export const handler = operation(checkOut.machine, async ({ actor, params, query, body }) =>
  fileDocumentReply(await checkOutMachine(actor, params.id, checkOutParameters(query, body))),
);
