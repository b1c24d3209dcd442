import { licenses } from '#shared/api/licenses.ts';
import { licenseOwner } from '#shared/domain/licenses/service.ts';
import { userDocument } from '#shared/domain/users/document.ts';
import { ok, okNone } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /licenses/<id>/owner: the owner, or data null for a license without one. */
export const handler = operation(licenses.owner, async ({ actor, params }) => {
  const owner = await licenseOwner(actor, params.id);
  return owner ? ok(userDocument(owner)) : okNone();
});
