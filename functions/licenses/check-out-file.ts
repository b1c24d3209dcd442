import { checkOut, checkOutParameters, fileReply } from '#shared/api/check-out.ts';
import { checkOutLicense } from '#shared/domain/check-out/service.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /licenses/<id>/actions/check-out: the license file itself, as `<id>.lic`. */
export const handler = operation(checkOut.licenseFile, async ({ actor, params, query }) =>
  fileReply(await checkOutLicense(actor, params.id, checkOutParameters(query))),
);
