import { licenseDocument } from '#shared/domain/licenses/document.ts';
import { listUserLicenses } from '#shared/domain/licenses/service.ts';
import { listReply, pageRequest } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /users/<id>/licenses */
export const handler = operation('bearer', async (ctx) => {
  const request = pageRequest(ctx.query);
  return listReply(ctx, request, await listUserLicenses(ctx, ctx.params.id!, request), licenseDocument);
});
