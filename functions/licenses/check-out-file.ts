import { operation } from '#shared/http/pipeline.ts';
import { checkOut, checkOutParameters, fileReply } from '#shared/resources/check-out/operations.ts';
import { checkOutLicense } from '#shared/resources/check-out/service.ts';

/** GET /licenses/<id>/actions/check-out: the license file itself, as `<id>.lic`. */
export const handler = operation(checkOut.licenseFile, async ({ actor, params, query }) =>
  fileReply(await checkOutLicense(actor, params.id, checkOutParameters(query))),
);
