import { checkOut, checkOutParameters, fileReply } from '#shared/api/check-out.ts';
import { checkOutMachine } from '#shared/domain/check-out/service.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /machines/<id>/actions/check-out: the machine file itself, as `<id>.lic`. */
export const handler = operation(checkOut.machineFile, async ({ actor, params, query }) =>
  fileReply(await checkOutMachine(actor, params.id, checkOutParameters(query))),
);
