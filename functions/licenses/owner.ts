import { licenseOwner } from '#shared/domain/licenses/service.ts';
import { userDocument } from '#shared/domain/users/document.ts';
import { ok, okNone } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /licenses/<id>/owner: the owner, or data null for a license without one. */
export const handler = operation('bearer', async (ctx) => {
  const owner = await licenseOwner(ctx, ctx.params.id!);
  return owner ? ok(userDocument(owner)) : okNone();
});
