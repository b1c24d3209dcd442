import { policyDocument } from '#shared/domain/policies/document.ts';
import { listPolicies } from '#shared/domain/policies/service.ts';
import { listReply, pageRequest } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => {
  const request = pageRequest(ctx.query);
  return listReply(ctx, request, await listPolicies(ctx, request), policyDocument);
});
