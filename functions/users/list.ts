import { userDocument } from '#shared/domain/users/document.ts';
import { listUsers } from '#shared/domain/users/service.ts';
import { listReply, pageRequest } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => {
  const request = pageRequest(ctx.query);
  return listReply(ctx, request, await listUsers(ctx, request), userDocument);
});
