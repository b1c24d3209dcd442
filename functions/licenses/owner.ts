import { ok, okNone } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { licenses } from '#shared/resources/licenses/operations.ts';
import { licenseOwner } from '#shared/resources/licenses/service.ts';
import { userDocument } from '#shared/resources/users/document.ts';

/** GET /licenses/<id>/owner: the owner, or data null for a license without one. */
export const handler = operation(licenses.owner, async ({ actor, params }) => {
  const owner = await licenseOwner(actor, params.id);
  return owner ? ok(userDocument(owner)) : okNone();
});
