import { listEnvironmentTokens } from '#shared/domain/environments/service.ts';
import { tokenDocument } from '#shared/domain/tokens/document.ts';
import { listReply, pageRequest } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => {
  const request = pageRequest(ctx.query);
  return listReply(ctx, request, await listEnvironmentTokens(ctx, ctx.params.id!, request), tokenDocument);
});
