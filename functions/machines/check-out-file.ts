import { operation } from '#shared/http/pipeline.ts';
import { checkOut, checkOutParameters, fileReply } from '#shared/resources/check-out/operations.ts';
import { checkOutMachine } from '#shared/resources/check-out/service.ts';

/** GET /machines/<id>/actions/check-out: the machine file itself, as `<id>.lic`. */
export const handler = operation(checkOut.machineFile, async ({ actor, params, query }) =>
  fileReply(await checkOutMachine(actor, params.id, checkOutParameters(query))),
);
