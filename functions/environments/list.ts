import { environmentDocument } from '#shared/domain/environments/document.ts';
import { listEnvironments } from '#shared/domain/environments/service.ts';
import { listReply, pageRequest } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => {
  const request = pageRequest(ctx.query);
  return listReply(ctx, request, await listEnvironments(ctx, request), environmentDocument);
});
