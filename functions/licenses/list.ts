import { licenses } from '#shared/api/licenses.ts';
import { licenseDocument } from '#shared/domain/licenses/document.ts';
import { listLicenses } from '#shared/domain/licenses/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(licenses.list, async (call) =>
  listReply(call, await listLicenses(call.actor, call.query, call.page), licenseDocument),
);
