import { componentDocument } from '#shared/domain/components/document.ts';
import { listComponents } from '#shared/domain/components/service.ts';
import { listReply, pageRequest } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => {
  const request = pageRequest(ctx.query);
  return listReply(ctx, request, await listComponents(ctx, request), componentDocument);
});
