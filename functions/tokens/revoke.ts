import { revokeToken } from '#shared/domain/tokens/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => {
  await revokeToken(ctx, ctx.params.id!);
  return noContent();
});
