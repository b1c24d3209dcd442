import { licenses } from '#shared/api/licenses.ts';
import { licenseDocument } from '#shared/domain/licenses/document.ts';
import { listUserLicenses } from '#shared/domain/licenses/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /users/<id>/licenses */
export const handler = operation(licenses.ofUser, async (call) =>
  listReply(call, await listUserLicenses(call.actor, call.params.id, call.query, call.page), licenseDocument),
);
