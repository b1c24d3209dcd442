import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { licenseDocument } from '#shared/resources/licenses/document.ts';
import { licenses } from '#shared/resources/licenses/operations.ts';
import { listLicenses } from '#shared/resources/licenses/service.ts';

export const handler = operation(licenses.list, async (call) =>
  listReply(call, await listLicenses(call.actor, call.query, call.page), licenseDocument),
);
