import { tokenDocument } from '#shared/domain/tokens/document.ts';
import { listTokens } from '#shared/domain/tokens/service.ts';
import { listReply, pageRequest } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => {
  const request = pageRequest(ctx.query);
  return listReply(ctx, request, await listTokens(ctx, request), tokenDocument);
});
