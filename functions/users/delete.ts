import { deleteUser } from '#shared/domain/users/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => {
  await deleteUser(ctx, ctx.params.id!);
  return noContent();
});
