import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { licenseDocument } from '#shared/resources/licenses/document.ts';
import { licenses } from '#shared/resources/licenses/operations.ts';
import { listUserLicenses } from '#shared/resources/licenses/service.ts';

/** GET /users/<id>/licenses */
export const handler = operation(licenses.ofUser, async (call) =>
  listReply(call, await listUserLicenses(call.actor, call.params.id, call.query, call.page), licenseDocument),
);
