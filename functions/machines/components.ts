import { componentDocument } from '#shared/domain/components/document.ts';
import { listMachineComponents } from '#shared/domain/components/service.ts';
import { listReply, pageRequest } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /machines/<id>/components */
export const handler = operation('bearer', async (ctx) => {
  const request = pageRequest(ctx.query);
  return listReply(ctx, request, await listMachineComponents(ctx, ctx.params.id!, ctx.query, request), componentDocument);
});
