import { checkOut, checkOutParameters, fileDocumentReply } from '#shared/api/check-out.ts';
import { checkOutLicense } from '#shared/domain/check-out/service.ts';
import { operation } from '#shared/http/pipeline.ts';

/** POST /licenses/<id>/actions/check-out: a license file, in a `license-files` document. */
export const handler = operation(checkOut.license, async ({ actor, params, query, body }) =>
  fileDocumentReply(await checkOutLicense(actor, params.id, checkOutParameters(query, body))),
);
