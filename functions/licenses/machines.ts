import { machineDocument } from '#shared/domain/machines/document.ts';
import { listLicenseMachines } from '#shared/domain/machines/service.ts';
import { listReply, pageRequest } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /licenses/<id>/machines */
export const handler = operation('bearer', async (ctx) => {
  const request = pageRequest(ctx.query);
  return listReply(ctx, request, await listLicenseMachines(ctx, ctx.params.id!, request), machineDocument);
});
