import { operation } from '#shared/http/pipeline.ts';
import { checkOut, checkOutParameters, fileDocumentReply } from '#shared/resources/check-out/operations.ts';
import { checkOutLicense } from '#shared/resources/check-out/service.ts';

/** POST /licenses/<id>/actions/check-out: a license file, in a `license-files` document. */
export const handler = operation(checkOut.license, async ({ actor, params, query, body }) =>
  fileDocumentReply(await checkOutLicense(actor, params.id, checkOutParameters(query, body))),
);
